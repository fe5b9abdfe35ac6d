import { describe, expect, it } from "vitest";
import { jsonPath } from "../../core/errors";
import {
  exportProjectFile,
  parseProjectFile,
  planImport,
  type CurrentAgent,
  type ProjectFile,
} from "../../core/projects";
import { api, uniqueName } from "../api/client";

const options = { defaultModel: { provider: "offline", name: "offline" }, builtinTools: new Set(["clock.now"]) };

function parsed(value: unknown, existing: string[] = []): ProjectFile {
  const result = parseProjectFile(value, new Set(existing));
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.file;
}

/** What the project holds after applying a plan's creates (enough for the diff). */
function applied(file: ProjectFile): CurrentAgent[] {
  const planned = planImport(file, [], options);
  if (!planned.ok) throw new Error(JSON.stringify(planned.issues));
  return planned.plan.create.map((d) => ({
    profile: {
      name: d.name,
      description: d.description,
      systemPrompt: d.systemPrompt,
      model: d.model,
      runtime: d.runtime,
      connections: file.agents[d.name]!.connections,
      script: d.script,
      parent: null,
      createdAt: 1,
      updatedAt: 1,
    },
    displayName: d.displayName,
    scriptSource: d.scriptSource,
  }));
}

describe("project files, pure parts (core/projects)", () => {
  it("JSON paths quote keys that are not identifiers", () => {
    expect(jsonPath(["agents", "main", "tools", 0])).toBe("$.agents.main.tools[0]");
    expect(jsonPath(["agents", "Bad Key"])).toBe('$.agents["Bad Key"]');
  });

  it("keys a project file does not have are warnings, not failures", () => {
    const result = parseProjectFile({ version: 2, agents: { main: { description: "x", prompt: "hi" } } }, new Set());
    expect(result.ok && result.warnings).toEqual([
      { path: "$.version", message: "'version' is not part of a project file and is ignored" },
      {
        path: "$.agents.main.prompt",
        message: "'prompt' is not part of a project file and is ignored (Pantheon's own fields go under 'pantheon')",
      },
    ]);
  });

  it("a script that does not compile, or defines another actor, is an issue at the script's path", () => {
    const broken = planImport(
      parsed({ agents: { scout: { pantheon: { script: '(actor "scout" (model :provider))' } } } }),
      [],
      options,
    );
    expect(broken.ok).toBe(false);
    if (!broken.ok)
      expect(broken.issues[0]).toEqual({
        path: "$.agents.scout.pantheon.script",
        message: expect.stringMatching(/^1:\d+: /),
      });
    const other = planImport(
      parsed({ agents: { scout: { pantheon: { script: '(actor "other" (description "x"))' } } } }),
      [],
      options,
    );
    expect(!other.ok && other.issues).toEqual([
      {
        path: "$.agents.scout.pantheon.script",
        message: "the script defines actor 'other' but is the script of agent 'scout'",
      },
    ]);
  });

  it("export of what an import made plans nothing when imported again (a display name equal to the key is no name)", () => {
    const file = parsed({
      agents: {
        main: { name: "main", description: "Routes.", connections: ["helper"] },
        helper: { name: "Helper", description: "Helps.", tools: ["clock.now", "notes.sh"] },
      },
    });
    const current = applied(file);
    const again = planImport(parsed(exportProjectFile(current), ["main", "helper"]), current, options);
    expect(again.ok && again.plan).toMatchObject({
      changed: false,
      create: [],
      update: [],
      connect: [],
      unchanged: ["helper", "main"],
    });
    expect(again.ok && again.plan.warnings).toEqual([
      {
        path: "$.agents.helper.tools[1]",
        message: expect.stringMatching(/^'notes\.sh' is not a tool Pantheon provides/),
      },
    ]);
  });
});

describe("project files, hostile input", () => {
  it("a file nested deeper than 64 levels, or over 64 KiB, is refused before it is read", async () => {
    const slug = uniqueName("hostile");
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    let deep: unknown = "x";
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const tooDeep = await api(`/api/projects/${slug}/import`, {
      method: "POST",
      json: { agents: { main: { description: "x", pantheon: deep } } },
    });
    expect(tooDeep.status).toBe(400);
    const huge = await api(`/api/projects/${slug}/import`, {
      method: "POST",
      json: { agents: { main: { description: "x".repeat(70_000) } } },
    });
    expect(huge.status).toBe(413);
    const long = await api(`/api/projects/${slug}/import`, {
      method: "POST",
      json: { agents: { main: { description: "x".repeat(3000) } } },
    });
    expect(((await long.json()) as any).error.issues).toEqual([
      { path: "$.agents.main.description", message: "at most 2,000 characters" },
    ]);
  });
});
