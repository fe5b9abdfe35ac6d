// Export names every part a format cannot hold (talents, behaviors, context sources, HTTP tools,
// connections, gates, approvals) as warnings `{ part, names, why }`; an OpenCode agent file imports
// as well as exports, round trip equal, with what is lost named both ways.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { api, createAgent, uniqueName } from "../api/client";

const exportAs = async (name: string, format: string) =>
  api(`/api/agents/${name}/export?format=${format}`, { headers: { accept: "application/json" } });
const importAs = (format: string, json: unknown) =>
  api(`/api/agents/import?format=${format}`, { method: "POST", json });
const partsOf = (warnings: any[]) => Object.fromEntries(warnings.filter((w) => w.part).map((w) => [w.part, w.names]));

/** An agent with everything a script and an operator give it: a talent and two behaviors, sources, a gate, an HTTP tool that waits for approval, a connection. */
async function fullAgent() {
  const helper = await createAgent({ name: uniqueName("helper") });
  const name = uniqueName("full");
  await createAgent({
    name,
    runtime: {
      tools: ["clock.now"],
      allowHosts: ["api.example.com"],
      httpTools: [
        {
          name: "crm.lookup",
          description: "Looks a customer up",
          endpoint: "https://api.example.com/lookup",
          requiresApproval: true,
        },
      ],
    },
  });
  const script = `(actor "${name}"
  (description "Keeps the customer list.")
  (model :provider "openai" :name "gpt-4o-mini")
  (context (source "conversation") (source "handbook"))
  (tools "clock.now" "crm.lookup")
  (connections "${helper.name}")
  (gate "few-calls" :max-calls 20 :tool "crm.*")
  (talent "records"
    (behavior "answer" :active (goal (input) (get input "text")) (plan (input ctx) (think)))
    (behavior "digest" :passive :every "1h" (goal (input) "summarise") (plan (input ctx) (think)))))`;
  const put = await api(`/api/agents/${name}/script`, {
    method: "PUT",
    headers: { "content-type": "text/x-pantheon" },
    body: script,
  });
  expect(put.status, await put.clone().text()).toBeLessThan(300);
  return { name, helper: helper.name };
}

describe("export names what the format cannot hold", () => {
  for (const format of ["openai", "anthropic"]) {
    it(`${format}: behaviors, talents, context sources, HTTP tools, connections, gates and approvals, each by name`, async () => {
      const { name, helper } = await fullAgent();
      const res = await exportAs(name, format);
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(partsOf(body.warnings)).toEqual({
        talents: ["records"],
        behaviors: ["answer", "digest"],
        contextSources: ["conversation", "handbook"],
        httpTools: ["crm.lookup"],
        connections: [`ask_${helper}`],
        gates: ["few-calls"],
        approvals: ["crm.lookup"],
        // Every other field the format has no place for, by its path (core/agents/definition.ts).
        fields: ["runtime.allowHosts"],
      });
      const behaviors = body.warnings.find((w: any) => w.part === "behaviors");
      expect(behaviors.why).toMatch(/has no behaviors/);
      expect(behaviors.message).toBe(`behaviors answer, digest left out: ${behaviors.why}`);
    });
  }

  it("a plain agent (no script, no HTTP tools) has no part left out", async () => {
    const { name } = await createAgent({ runtime: { tools: ["clock.now"] } });
    const body = (await (await exportAs(name, "openai")).json()) as any;
    expect(partsOf(body.warnings)).toEqual({});
  });

  it("opencode: the file as JSON for a client that asks, with its warnings; approvals go out as permission: ask", async () => {
    const { name } = await fullAgent();
    const body = (await (await exportAs(name, "opencode")).json()) as any;
    expect(body.format).toBe("opencode");
    const front = parse(/^---\n([\s\S]*?)\n---/.exec(body.file)![1]!);
    expect(front.permission).toEqual({ "crm.lookup": "ask" });
    expect(partsOf(body.warnings)).toMatchObject({
      behaviors: ["answer", "digest"],
      talents: ["records"],
      contextSources: ["conversation", "handbook"],
      httpTools: ["crm.lookup"],
      gates: ["few-calls"],
    });
    expect(partsOf(body.warnings).approvals).toBeUndefined();
    // Without asking for JSON, the file itself (markdown), its warnings in a header.
    const raw = await api(`/api/agents/${name}/export?format=opencode`);
    expect(raw.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await raw.text()).toBe(body.file);
    expect(JSON.parse(decodeURIComponent(raw.headers.get("x-pantheon-warnings")!)).map((w: any) => w.part)).toContain(
      "behaviors",
    );
  });
});

describe("OpenCode agent files import", () => {
  it("export → import → export gives the same file; mode is named as lost on the way in", async () => {
    const { name } = await createAgent({
      description: "Answers questions about the weather.",
      systemPrompt: "You are a weather assistant.\n\nAnswer in one sentence.",
      model: { provider: "anthropic", name: "claude-haiku-4-5", temperature: 0.2 },
      runtime: { tools: ["clock.now", "memory.search"], approvalRequired: ["memory.search"], limits: { maxSteps: 6 } },
    });
    const first = (await (await exportAs(name, "opencode")).json()) as any;
    const copy = uniqueName("copy");
    const res = await importAs("opencode", { name: copy, config: first.file });
    expect(res.status, await res.clone().text()).toBe(201);
    const imported = (await res.json()) as any;
    expect(imported.agent).toMatchObject({
      name: copy,
      description: "Answers questions about the weather.",
      systemPrompt: "You are a weather assistant.\n\nAnswer in one sentence.",
      model: { provider: "anthropic", name: "claude-haiku-4-5", temperature: 0.2 },
      runtime: {
        tools: expect.arrayContaining(["clock.now", "memory.search"]),
        approvalRequired: ["memory.search"],
        limits: { maxSteps: 6 },
      },
    });
    // Every tool the file enables (the memory tools every agent has among them) is one the copy has.
    expect(imported.agent.runtime.tools.sort()).toEqual(
      Object.keys(parse(/^---\n([\s\S]*?)\n---/.exec(first.file)![1]!).tools).sort(),
    );
    expect(partsOf(imported.warnings)).toEqual({ mode: ["primary"] });
    const second = (await (await exportAs(copy, "opencode")).json()) as any;
    expect(second.file).toBe(first.file);
    // What export answers as JSON imports as it is, too.
    expect((await importAs("opencode", { name: uniqueName("copy"), config: first })).status).toBe(201);
  });

  it("HTTP tools are lost both ways, by name: out without their endpoint, in as a tool Pantheon does not have", async () => {
    const { name } = await fullAgent();
    const first = (await (await exportAs(name, "opencode")).json()) as any;
    expect(partsOf(first.warnings).httpTools).toEqual(["crm.lookup"]);
    const res = await importAs("opencode", { name: uniqueName("copy"), config: first.file });
    expect(res.status).toBe(201);
    const imported = (await res.json()) as any;
    expect(partsOf(imported.warnings).tools).toEqual(["crm.lookup"]);
    expect(imported.agent.runtime.tools).toContain("clock.now");
    expect(imported.agent.runtime.tools).not.toContain("crm.lookup");
  });

  it("reads an OpenCode docs-style file: OpenCode's own tools, permission patterns and unknown fields are named; deny wins", async () => {
    const file = [
      "---",
      "description: Reviews code for quality and best practices",
      "mode: subagent",
      "model: anthropic/claude-sonnet-4-20250514",
      "temperature: 0.1",
      "color: '#FF5733'",
      "tools:",
      "  write: false",
      "  edit: false",
      "  bash: true",
      "  clock.now: true",
      "  http.fetch: true",
      "permission:",
      "  http.fetch: deny",
      "  bash:",
      "    '*': ask",
      "    'git status': allow",
      "---",
      "You are in code review mode. Focus on code quality.",
      "",
    ].join("\n");
    const res = await importAs("opencode", { name: uniqueName("review"), config: file });
    expect(res.status, await res.clone().text()).toBe(201);
    const body = (await res.json()) as any;
    expect(body.agent).toMatchObject({
      description: "Reviews code for quality and best practices",
      systemPrompt: "You are in code review mode. Focus on code quality.",
      model: { provider: "anthropic", name: "claude-sonnet-4-20250514", temperature: 0.1 },
    });
    expect(body.agent.runtime.tools).toEqual(["clock.now"]);
    expect(partsOf(body.warnings)).toEqual({
      fields: ["color"],
      mode: ["subagent"],
      tools: ["bash"],
      permission: ["bash"],
    });
  });

  it("refuses a file it cannot read, naming where (400), and creates nothing; a good file beside it imports", async () => {
    const cases: [unknown, string][] = [
      ["no front matter here", "$.file"],
      ["---\nmode: primary\n---\nHi", "$.file.description"],
      ["---\ndescription: x\nmodel: gpt-4o\n---\nHi", "$.file.model"],
      ["---\ndescription: x\ntools:\n  bash: sometimes\n---\nHi", "$.file.tools.bash"],
      [{ instructions: "an OpenAI config" }, "$.config"],
    ];
    for (const [config, path] of cases) {
      const name = uniqueName("bad");
      const res = await importAs("opencode", { name, config });
      expect(res.status, JSON.stringify(config)).toBe(400);
      expect(((await res.json()) as any).error.details.issues[0].path).toBe(path);
      expect((await api(`/api/agents/${name}`)).status).toBe(404);
    }
    // Text is only for opencode.
    expect((await importAs("openai", { name: uniqueName("bad"), config: "---\ndescription: x\n---\n" })).status).toBe(
      400,
    );
    expect(
      (await importAs("opencode", { name: uniqueName("good"), config: "---\ndescription: x\n---\nHi\n" })).status,
    ).toBe(201);
  });
});
