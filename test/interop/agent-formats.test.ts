import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { api, createAgent, uniqueName } from "../api/client";

const exportAs = async (name: string, format: string) => api(`/api/agents/${name}/export?format=${format}`);
const importAs = (format: string, json: unknown) =>
  api(`/api/agents/import?format=${format}`, { method: "POST", json });

async function richAgent() {
  const helper = await createAgent({ name: uniqueName("helper") });
  const agent = await createAgent({
    description: "Answers questions about the weather.",
    systemPrompt: "You are a weather assistant. Answer in one sentence.",
    model: { provider: "openai", name: "gpt-4o-mini", temperature: 0.3, maxTokens: 800 },
    runtime: { tools: ["clock.now"], limits: { maxSteps: 6 } },
  });
  expect(
    (await api(`/api/agents/${agent.name}/connections`, { method: "PUT", json: { connections: [helper.name] } }))
      .status,
  ).toBe(200);
  return agent.name;
}

describe("agent export", () => {
  it("as an OpenAI Agents SDK / Responses configuration: instructions, model, settings and flat function tools", async () => {
    const name = await richAgent();
    const res = await exportAs(name, "openai");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.format).toBe("openai");
    expect(body.config).toMatchObject({
      name,
      instructions: "You are a weather assistant. Answer in one sentence.",
      handoff_description: "Answers questions about the weather.",
      model: "gpt-4o-mini",
      model_settings: { temperature: 0.3, max_tokens: 800 },
    });
    expect(body.config.tools.find((t: any) => t.name === "clock__now")).toMatchObject({
      type: "function",
      parameters: { type: "object" },
    });
    // Delegation tools stay inside Pantheon, and say so.
    expect(body.config.tools.some((t: any) => t.name.startsWith("ask_"))).toBe(false);
    expect(body.warnings).toContainEqual(
      expect.objectContaining({ part: "connections", path: "$.tools", names: [expect.stringMatching(/^ask_helper-/)] }),
    );
  });

  it("as an Anthropic Messages configuration: system, model, max_tokens and tools", async () => {
    const name = await richAgent();
    const body = (await (await exportAs(name, "anthropic")).json()) as any;
    expect(body.config).toMatchObject({
      system: "You are a weather assistant. Answer in one sentence.",
      model: "openai/gpt-4o-mini",
      max_tokens: 800,
      temperature: 0.3,
    });
    expect(body.config.tools.find((t: any) => t.name === "clock__now")).toMatchObject({
      input_schema: { type: "object" },
    });
    expect(body.warnings.map((w: any) => w.path)).toEqual(expect.arrayContaining(["$.model", "$.description"]));
  });

  it("as an OpenCode agent file: markdown with YAML frontmatter (description, mode, model, tools) and the prompt as body", async () => {
    const name = await richAgent();
    const res = await exportAs(name, "opencode");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = await res.text();
    const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
    expect(match).not.toBeNull();
    const front = parse(match![1]!);
    expect(front).toMatchObject({
      description: "Answers questions about the weather.",
      mode: "primary",
      model: "openai/gpt-4o-mini",
      temperature: 0.3,
      maxSteps: 6,
    });
    expect(front.tools["clock.now"]).toBe(true);
    expect(match![2]!.trim()).toBe("You are a weather assistant. Answer in one sentence.");
    // An agent other agents ask is a subagent.
    const helper = (await (await api(`/api/agents/${name}/connections`)).json()) as any;
    const helperFile = await (await exportAs(helper.connections[0], "opencode")).text();
    expect(parse(/^---\n([\s\S]*?)\n---/.exec(helperFile)![1]!).mode).toBe("subagent");
  });

  it("refuses an unknown format naming the allowed ones, and a chat token", async () => {
    const { name } = await createAgent();
    const bad = await exportAs(name, "yaml");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.issues[0]).toEqual({
      path: ["format"],
      message: "one of openai, anthropic, opencode",
    });
    const token = (
      (await (await api("/api/tokens", { method: "POST", json: { name: "phone", scope: "chat" } })).json()) as any
    ).token;
    expect((await api(`/api/agents/${name}/export?format=openai`, { token })).status).toBe(403);
    expect(
      (
        await api(`/api/agents/import?format=openai`, {
          method: "POST",
          json: { name: uniqueName("x"), config: {} },
          token,
        })
      ).status,
    ).toBe(403);
  });
});

describe("agent import into a Pantheon script, and round trips", () => {
  it("OpenAI: export → import as a new agent → export gives the same configuration", async () => {
    const name = await richAgent();
    const first = (await (await exportAs(name, "openai")).json()) as any;
    const copy = uniqueName("copy");
    const res = await importAs("openai", { name: copy, config: first });
    expect(res.status).toBe(201);
    const imported = (await res.json()) as any;
    expect(imported.script.source).toMatch(new RegExp(`^\\(actor "${copy}"`));
    expect(imported.script.source).toContain(
      '(model :provider "openai" :name "gpt-4o-mini" :temperature 0.3 :max-tokens 800)',
    );
    expect(imported.warnings).toContainEqual({
      path: "$.config.instructions",
      message: expect.stringMatching(/^the script language has no form for instructions/),
    });
    // The agent is defined by that script.
    const script = (await (await api(`/api/agents/${copy}/script`)).json()) as any;
    expect(script.source).toBe(imported.script.source);
    const second = (await (await exportAs(copy, "openai")).json()) as any;
    expect({ ...second.config, name }).toEqual(first.config);
  });

  it("Anthropic: export → import → export gives the same configuration", async () => {
    const name = await richAgent();
    const first = (await (await exportAs(name, "anthropic")).json()) as any;
    const copy = uniqueName("copy");
    expect((await importAs("anthropic", { name: copy, config: first.config })).status).toBe(201);
    const second = (await (await exportAs(copy, "anthropic")).json()) as any;
    expect(second.config).toEqual(first.config);
  });

  it("imports the OpenAI Agents SDK docs' weather agent and Anthropic's get_weather request config", async () => {
    const weather = uniqueName("weather");
    const openai = await importAs("openai", {
      name: weather,
      config: {
        name: "Weather agent",
        instructions: "You are a helpful agent.",
        model: "gpt-4.1",
        tools: [
          {
            type: "function",
            name: "get_weather",
            description: "Get the weather for a city.",
            parameters: {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
            strict: true,
          },
        ],
      },
    });
    expect(openai.status).toBe(201);
    const body = (await openai.json()) as any;
    expect(body.agent).toMatchObject({
      name: weather,
      systemPrompt: "You are a helpful agent.",
      model: { provider: "openai", name: "gpt-4.1" },
    });
    expect(body.agent.runtime.tools).toEqual(["get_weather"]);
    expect(body.script.source).toContain('(tools "get_weather")');
    expect(body.warnings).toContainEqual({
      path: "$.config.tools[0]",
      message: expect.stringMatching(/^'get_weather' has no endpoint: declared by name only/),
    });

    const claude = uniqueName("claude");
    const anthropic = await importAs("anthropic", {
      name: claude,
      config: {
        model: "claude-opus-4-1-20250805",
        max_tokens: 1024,
        system: [{ type: "text", text: "You are a weather bot.", cache_control: { type: "ephemeral" } }],
        tools: [
          {
            name: "get_weather",
            description: "Get the current weather in a given location",
            input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
          },
        ],
        messages: [{ role: "user", content: "What's the weather like in San Francisco?" }],
      },
    });
    expect(anthropic.status).toBe(201);
    const made = (await anthropic.json()) as any;
    expect(made.agent).toMatchObject({
      systemPrompt: "You are a weather bot.",
      model: { provider: "anthropic", name: "claude-opus-4-1-20250805", maxTokens: 1024 },
    });
    expect(made.warnings).toContainEqual({
      path: "$.config.system[0].cache_control",
      message: "'cache_control' is not kept",
    });
  });

  it("refuses a configuration it cannot read (naming the path), an existing name, and a tool endpoint outside the allowlist; nothing is created", async () => {
    const bad = await importAs("openai", {
      name: uniqueName("bad"),
      config: { instructions: 5, tools: [{ type: "function" }] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.issues.map((i: any) => i.path)).toContain("$.config.instructions");
    const { name } = await createAgent();
    expect((await importAs("anthropic", { name, config: { system: "x" } })).status).toBe(409);
    const leak = uniqueName("leak");
    const refused = await importAs("anthropic", {
      name: leak,
      config: { tools: [{ name: "exfil", input_schema: { type: "object" }, endpoint: "https://evil.example.com/in" }] },
    });
    expect(refused.status).toBe(400);
    expect((await api(`/api/agents/${leak}`)).status).toBe(404);
  });
});
