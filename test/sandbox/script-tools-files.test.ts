import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";

const doubler = `export const tool = { name: "num.double", description: "twice a number", input: { type: "object", properties: { n: { type: "number" } } } };
export default async (input: { n: number }) => input.n * 2;
`;

/** A fresh project for each test, named in the header (the client creates it). */
function inProject() {
  const project = uniqueName("proj")
    .replace(/[^a-z0-9-]/g, "")
    .slice(0, 40);
  const call = (path: string, init: Parameters<typeof api>[1] = {}) =>
    api(path, { ...init, headers: { "x-pantheon-project": project } });
  return { project, call };
}

describe("script tools in project files", () => {
  it("an export carries the script tools its agents list; an import into another project saves them and its agent runs them", async () => {
    const from = inProject();
    await from.call("/api/agents", { method: "POST", json: { name: "doubling", runtime: { tools: ["num.double"] } } });
    expect(
      (await from.call(`/api/projects/${from.project}/tools`, { method: "POST", json: { source: doubler } })).status,
    ).toBe(201);
    const file = (await (await from.call(`/api/projects/${from.project}/export`)).json()) as {
      scriptTools?: Record<string, { source: string }>;
    };
    expect(file.scriptTools).toEqual({ "num.double": { source: doubler } });

    const to = inProject();
    await to.call("/api/agents", { method: "GET" });
    const imported = await to.call(`/api/projects/${to.project}/import`, { method: "POST", json: file });
    expect(imported.status).toBe(200);
    const report = (await imported.json()) as { warnings: unknown[] };
    expect(JSON.stringify(report.warnings)).not.toContain("num.double");
    const run = await to.call("/api/agents/doubling/tools/num.double/invoke", {
      method: "POST",
      json: { arguments: { n: 21 } },
    });
    expect(JSON.stringify(await run.json())).toContain('"output":"42"');

    // The same file again: nothing changes, the tool keeps its version.
    const again = (await (
      await to.call(`/api/projects/${to.project}/import`, { method: "POST", json: file })
    ).json()) as {
      changed: boolean;
    };
    expect(again.changed).toBe(false);
    const listed = (await (await to.call(`/api/projects/${to.project}/tools`)).json()) as {
      tools: { version: number }[];
    };
    expect(listed.tools.map((t) => t.version)).toEqual([1]);
  });

  it("a file whose script does not compile, or names itself otherwise, is refused at that path", async () => {
    const to = inProject();
    await to.call("/api/agents", { method: "GET" });
    const broken = {
      agents: { a: { tools: ["num.double"] } },
      scriptTools: { "num.double": { source: "export default (" } },
    };
    const res = await to.call(`/api/projects/${to.project}/import`, { method: "POST", json: broken });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues[0]?.path).toBe('$.scriptTools["num.double"].source');
    const misnamed = { agents: { a: { tools: ["num.double"] } }, scriptTools: { "num.triple": { source: doubler } } };
    const named = await to.call(`/api/projects/${to.project}/import`, { method: "POST", json: misnamed });
    expect(JSON.stringify(await named.json())).toContain("the script declares the name 'num.double', not 'num.triple'");
    // The positive control: the right file imports.
    const good = { agents: { a: { tools: ["num.double"] } }, scriptTools: { "num.double": { source: doubler } } };
    expect((await to.call(`/api/projects/${to.project}/import`, { method: "POST", json: good })).status).toBe(200);
  });
});
