import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import example from "../../examples/agents.json";
import sample from "./fixtures/agents.json";

async function newProject(): Promise<string> {
  const slug = uniqueName("files");
  expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
  return slug;
}

const importInto = (slug: string, file: unknown, init: { token?: string; headers?: Record<string, string> } = {}) =>
  api(`/api/projects/${slug}/import`, { method: "POST", json: file, ...init });

async function agentsOf(slug: string) {
  const body = (await (await api("/api/agents", { headers: { "x-pantheon-project": slug } })).json()) as any;
  return Object.fromEntries(body.agents.map((a: any) => [a.name, a]));
}

describe("project files: import", () => {
  it("creates every agent, then every connection; a tool Pantheon does not provide is a warning, not a failure", async () => {
    const slug = await newProject();
    const res = await importInto(slug, sample);
    expect(res.status).toBe(200);
    const report = (await res.json()) as any;
    expect(report.changed).toBe(true);
    expect(report.agents).toEqual({ created: ["main", "airtable", "github"], updated: [], unchanged: [] });
    expect(report.connections.added.sort()).toEqual(["github -> main", "main -> airtable", "main -> github"]);
    expect(report.connections.removed).toEqual([]);
    expect(report.warnings).toEqual([
      {
        path: "$.agents.airtable.tools[0]",
        message: expect.stringMatching(/^'airtable\.py' is not a tool Pantheon provides; kept as a declared name/),
      },
      {
        path: "$.agents.github.tools[0]",
        message: expect.stringMatching(/^'github_tools\.py' is not a tool Pantheon provides/),
      },
    ]);

    const agents = await agentsOf(slug);
    expect(agents.main.connections).toEqual(["airtable", "github"]);
    expect(agents.main.description).toBe(sample.agents.main.description);
    expect(agents.airtable.runtime.tools).toEqual(["airtable.py"]);
    expect(agents.github.runtime.tools).toEqual(["github_tools.py", "clock.now"]);

    // The connections work: main may ask airtable (its ask_airtable tool is there).
    const tools = (await (
      await api("/api/agents/main/tools", { headers: { "x-pantheon-project": slug } })
    ).json()) as any;
    expect(tools.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(["ask_airtable", "ask_github"]));
  });

  it("is idempotent: a second import of the same file changes nothing and says so", async () => {
    const slug = await newProject();
    expect((await importInto(slug, sample)).status).toBe(200);
    const before = await agentsOf(slug);
    const again = (await (await importInto(slug, sample)).json()) as any;
    expect(again.changed).toBe(false);
    expect(again.agents).toEqual({ created: [], updated: [], unchanged: ["main", "airtable", "github"] });
    expect(again.connections).toEqual({ added: [], removed: [] });
    const after = await agentsOf(slug);
    for (const name of Object.keys(before)) expect(after[name].updatedAt).toBe(before[name].updatedAt);
  });

  it("updates what changed and reports removed connections", async () => {
    const slug = await newProject();
    await importInto(slug, sample);
    const edited = structuredClone(sample) as any;
    edited.agents.github.connections = [];
    edited.agents.airtable.description = "Only reads Airtable.";
    const report = (await (await importInto(slug, edited)).json()) as any;
    expect(report.changed).toBe(true);
    expect(report.agents).toEqual({ created: [], updated: ["airtable"], unchanged: ["main", "github"] });
    expect(report.connections).toEqual({ added: [], removed: ["github -> main"] });
    expect((await agentsOf(slug)).airtable.description).toBe("Only reads Airtable.");
  });

  it("refuses a bad file whole, naming the JSON path of each problem", async () => {
    const slug = await newProject();
    const bad = {
      agents: {
        main: { name: "Main", description: "ok", tools: ["Not A Tool"], connections: ["nobody", "main"] },
        "Bad Key": { description: "x" },
        helper: {
          description: 5,
          pantheon: {
            model: { provider: "" },
            runtime: { gates: [{ name: "echo", kind: "deny-pattern", pattern: "(a)\\1" }] },
          },
        },
      },
    };
    const res = await importInto(slug, bad);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe("invalid_project_file");
    const paths = body.error.issues.map((i: any) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "$.agents.main.tools[0]",
        '$.agents["Bad Key"]',
        "$.agents.helper.description",
        "$.agents.helper.pantheon.model.provider",
      ]),
    );
    for (const issue of body.error.issues) expect(issue.message).toEqual(expect.any(String));
    // Nothing was written.
    expect(await agentsOf(slug)).toEqual({});

    const wrongLinks = await importInto(slug, {
      agents: { main: { description: "ok", connections: ["nobody", "main"] } },
    });
    const links = ((await wrongLinks.json()) as any).error.issues;
    expect(links).toEqual([
      {
        path: "$.agents.main.connections[0]",
        message: "no agent 'nobody' in this file or the project: connections name other agents",
      },
      { path: "$.agents.main.connections[1]", message: "agent 'main' cannot be connected to itself" },
    ]);
    expect((await importInto(slug, [1, 2])).status).toBe(400);
    expect(
      (
        (await (
          await importInto(slug, {
            agents: {
              x: { pantheon: { runtime: { gates: [{ name: "echo", kind: "deny-pattern", pattern: "(a)\\1" }] } } },
            },
          })
        ).json()) as any
      ).error.issues[0].path,
    ).toBe("$.agents.x.pantheon.runtime.gates[0].pattern");
    expect(await agentsOf(slug)).toEqual({});
  });

  it("refuses an HTTP tool whose host is not allowed, at its path", async () => {
    const slug = await newProject();
    const file = {
      agents: {
        tool: {
          description: "x",
          pantheon: {
            runtime: { httpTools: [{ name: "leak", description: "d", endpoint: "https://evil.example.com/x" }] },
          },
        },
      },
    };
    const res = await importInto(slug, file);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.issues[0].path).toMatch(
      /^\$\.agents\.tool\.pantheon\.runtime\.httpTools\[0\]/,
    );
  });
});

describe("the example project file (examples/agents.json)", () => {
  it("imports with only its script tools as warnings", async () => {
    const slug = await newProject();
    const report = (await (await importInto(slug, example)).json()) as any;
    expect(report.agents.created.sort()).toEqual(["airtable", "github", "main"]);
    expect(report.warnings.map((w: any) => w.path)).toEqual(["$.agents.airtable.tools[0]", "$.agents.github.tools[0]"]);
  });
});

describe("project files: export", () => {
  it("writes the same shape back with Pantheon's fields under 'pantheon', and round-trips into an empty project", async () => {
    const source = await newProject();
    await importInto(source, sample);
    const headers = { "x-pantheon-project": source };
    // Pantheon's own fields: a script, a model, instructions, a runtime setting.
    const script = `(actor "scout" (description "Scouts for news.") (model :provider "offline" :name "offline") (tools "clock.now") (connections "main"))`;
    expect(
      (
        await api("/api/agents/scout/script", {
          method: "PUT",
          headers: { ...headers, "content-type": "text/x-pantheon" },
          body: script,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api("/api/agents/main", {
          method: "PATCH",
          headers,
          json: { systemPrompt: "You route questions.", runtime: { tools: ["clock.now"], limits: { maxSteps: 5 } } },
        })
      ).status,
    ).toBe(200);

    const exported = (await (await api(`/api/projects/${source}/export`)).json()) as any;
    expect(exported.agents.main).toMatchObject({
      name: "Main Agent",
      description: sample.agents.main.description,
      tools: ["clock.now"],
      connections: ["airtable", "github"],
    });
    expect(exported.agents.main.pantheon).toMatchObject({
      instructions: "You route questions.",
      model: { provider: "offline" },
      runtime: { limits: { maxSteps: 5 } },
    });
    expect(exported.agents.main.pantheon.runtime.tools).toBeUndefined();
    expect(exported.agents.airtable.tools).toEqual(["airtable.py"]);
    expect(exported.agents.scout.pantheon.script).toBe(script);

    const target = await newProject();
    const imported = (await (await importInto(target, exported)).json()) as any;
    expect(imported.agents.created.sort()).toEqual(["airtable", "github", "main", "scout"]);
    const back = (await (await api(`/api/projects/${target}/export`)).json()) as any;
    expect(back).toEqual(exported);
    // The scripted agent is scripted there too.
    const scriptBack = (await (
      await api("/api/agents/scout/script", { headers: { "x-pantheon-project": target } })
    ).json()) as any;
    expect(scriptBack.source).toBe(script);
    // And importing the export again changes nothing.
    expect(((await (await importInto(target, exported)).json()) as any).changed).toBe(false);
  });
});

describe("project files: who may", () => {
  it("a chat token cannot import or export; a project's admin token cannot reach another project", async () => {
    const mine = await newProject();
    const theirs = await newProject();
    const tokenOf = async (project: string, scope: string) =>
      (
        (await (
          await api("/api/tokens", {
            method: "POST",
            json: { name: scope, scope },
            headers: { "x-pantheon-project": project },
          })
        ).json()) as any
      ).token as string;
    const chat = await tokenOf(mine, "chat");
    expect((await importInto(mine, sample, { token: chat, headers: { "x-pantheon-project": mine } })).status).toBe(403);
    expect(
      (await api(`/api/projects/${mine}/export`, { token: chat, headers: { "x-pantheon-project": mine } })).status,
    ).toBe(403);
    const admin = await tokenOf(mine, "admin");
    const refused = await importInto(theirs, sample, { token: admin, headers: { "x-pantheon-project": mine } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.message).toBe(
      `a token of project '${mine}' cannot reach project '${theirs}'`,
    );
    expect(
      (await api(`/api/projects/${theirs}/export`, { token: admin, headers: { "x-pantheon-project": mine } })).status,
    ).toBe(403);
    expect(await agentsOf(theirs)).toEqual({});
    // Its own project it may.
    expect((await importInto(mine, sample, { token: admin, headers: { "x-pantheon-project": mine } })).status).toBe(
      200,
    );
    // An unknown project is a 404 naming it.
    const unknown = uniqueName("nowhere");
    const missing = await importInto(unknown, sample);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.message).toBe(`project '${unknown}' does not exist`);
  });
});
