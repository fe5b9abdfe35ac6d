import { describe, expect, it } from "vitest";
import airtable from "../../examples/airtable.pnth?raw";
import devBuddy from "../../examples/dev-buddy.pnth?raw";
import github from "../../examples/github.pnth?raw";
import main from "../../examples/main.pnth?raw";
import { api } from "../api/client";

// The same requests scripts/load-examples.mjs sends, in its order, in a project of their own.
const examples: [string, string][] = [
  ["airtable", airtable],
  ["github", github],
  ["dev-buddy", devBuddy],
  ["main", main],
];

describe("the example agents", () => {
  it("all load through PUT /script, and their scheduled behaviors are listed", async () => {
    const project = `examples-${Date.now().toString(36)}`;
    for (const [name, source] of examples) {
      const res = await api(`/api/agents/${name}/script`, {
        method: "PUT",
        headers: { "content-type": "text/x-pantheon", "x-pantheon-project": project },
        body: source,
      });
      expect(res.status, `${name}: ${await res.clone().text()}`).toBe(201);
    }
    const listed = (await (
      await api(`/api/agents/main/schedules`, { headers: { "x-pantheon-project": project } })
    ).json()) as any;
    expect(listed.schedules.map((s: any) => [s.behavior, s.trigger])).toEqual([
      ["fan-out", "message"],
      ["morning-brief", "cron 0 7 * * 1-5"],
    ]);
    const agents = (await (await api(`/api/agents`, { headers: { "x-pantheon-project": project } })).json()) as any;
    expect(agents.agents.map((a: any) => a.name)).toEqual(["airtable", "dev-buddy", "github", "main"]);
  });
});
