import { describe, expect, it } from "vitest";
import { entryFields } from "../../core/agents/definition";
import { api, uniqueName } from "../api/client";

type Warning = { part?: string; names?: string[]; path: string; message: string };

const formats = ["openai", "anthropic", "opencode"] as const;

/** A fresh project holding two agents from a project file: one with a display name, one without. */
async function projectWithDisplayName() {
  const project = uniqueName("shown").toLowerCase();
  const headers = { "x-pantheon-project": project };
  const imported = await api(`/api/projects/${project}/import`, {
    method: "POST",
    headers,
    json: {
      agents: {
        airtable: { name: "Airtable Agent", description: "Reads the bases.", tools: [], connections: [] },
        plain: { description: "Has no display name.", tools: [], connections: [] },
      },
    },
  });
  expect(imported.status, await imported.clone().text()).toBe(200);
  return { project, headers };
}

async function exportWarnings(headers: Record<string, string>, agent: string, format: string) {
  const res = await api(`/api/agents/${agent}/export?format=${format}`, {
    headers: { ...headers, accept: "application/json" },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { warnings: Warning[] }).warnings;
}

describe("a project file's display name through every door (core/agents/definition.ts, entryFields)", () => {
  it("each format's export names the display name it cannot hold; an agent without one gets no such warning", async () => {
    const { headers } = await projectWithDisplayName();
    for (const format of formats) {
      const carriage = entryFields.displayName.doors[format];
      expect(carriage).not.toBe("carries");
      const named = (await exportWarnings(headers, "airtable", format)).filter((w) => w.names?.includes("displayName"));
      expect(named, format).toHaveLength(1);
      expect(named[0]!.path).toBe("$.displayName");
      expect(named[0]!.message).toContain(typeof carriage === "string" ? "" : carriage.warns);
      // The control: the same export of an agent whose file gave it no display name says nothing of one.
      const plain = await exportWarnings(headers, "plain", format);
      expect(
        plain.filter((w) => w.names?.includes("displayName")),
        format,
      ).toEqual([]);
    }
  });

  it("a project file and a snapshot restored into another project carry it; restored under a new name it is left, with a warning", async () => {
    const { project, headers } = await projectWithDisplayName();
    const file = (await (await api(`/api/projects/${project}/export`, { headers })).json()) as {
      agents: Record<string, { name?: string }>;
    };
    expect(file.agents.airtable?.name).toBe("Airtable Agent");

    const snapshot = await (await api("/api/agents/airtable/snapshot", { headers })).text();
    const headerLine = snapshot.slice(0, snapshot.indexOf("\n") + 1);
    const other = uniqueName("shown-to").toLowerCase();
    const restore = (name: string, into: string) =>
      api(`/api/agents/${name}/snapshot/restore`, {
        method: "POST",
        headers: { "x-pantheon-project": into, "content-type": "application/x-ndjson" },
        body: headerLine,
      });
    const moved = await restore("airtable", other);
    expect(moved.status, await moved.clone().text()).toBe(201);
    const there = (await (
      await api(`/api/projects/${other}/export`, { headers: { "x-pantheon-project": other } })
    ).json()) as { agents: Record<string, { name?: string }> };
    expect(there.agents.airtable?.name).toBe("Airtable Agent");

    const copy = await restore("airtable-copy", project);
    expect(copy.status).toBe(201);
    const { warnings } = (await copy.json()) as { warnings: string[] };
    expect(warnings.some((w) => w.includes("display name 'Airtable Agent'"))).toBe(true);
  });
});
