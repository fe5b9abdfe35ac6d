import { describe, expect, it } from "vitest";
import { combineMajority } from "../../core/bus/policies";
import { compileScript, isScriptError } from "../../core/dsl";
import { makeCustomGate, rateKey, rateLimitGate, type GateContext } from "../../core/gates";
import { ownValue, reservedNameMessage, reservedNames } from "../../core/reserved-names";
import { defaultRunLimits } from "../../core/run/limits";
import { api, createAgent, uniqueName, type ErrorBody } from "../api/client";

/**
 * `constructor`, `prototype`, `__proto__` and every member of Object.prototype are what a plain
 * object answers for a key nobody set. As names a user picks (agents, tools, talents, behaviors,
 * connections) they are refused with a 400 naming the field and the rule; where a name still reaches
 * a lookup (rate limits by tool, calls by tool, votes by answer) it is read as an own key only.
 */
const issuesOf = async (res: Response) => ((await res.json()) as ErrorBody).error.details?.issues ?? [];

describe("reserved names are refused where a user names something", () => {
  it("as an agent name: POST /api/agents is a 400 naming `name` and the rule; an ordinary name is created", async () => {
    for (const name of ["constructor", "prototype"]) {
      const res = await api("/api/agents", { method: "POST", json: { name, description: "x" } });
      expect(res.status, name).toBe(400);
      expect(await issuesOf(res)).toEqual([{ path: ["name"], message: reservedNameMessage }]);
    }
    // Names of other Object members are not slugs at all (upper case, underscores): refused as such.
    for (const name of ["toString", "__proto__", "hasOwnProperty", "valueOf"])
      expect((await api("/api/agents", { method: "POST", json: { name } })).status, name).toBe(400);
    expect(
      (await api("/api/agents", { method: "POST", json: { name: "constructors", description: "x" } })).status,
    ).toBe(201);
  });

  it("as an agent of a project file: a 400 at `$.agents.constructor` (it was a 500); the same file with another name imports", async () => {
    const slug = uniqueName("reserved");
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    for (const name of ["constructor", "prototype"]) {
      const res = await api(`/api/projects/${slug}/import`, {
        method: "POST",
        json: {
          agents: {
            [name]: { description: "x", tools: ["clock.now"] },
            main: { description: "y", connections: [name] },
          },
        },
      });
      expect(res.status, name).toBe(400);
      const body = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
      expect(body.error.code).toBe("invalid_project_file");
      expect(body.error.issues).toContainEqual({
        path: `$.agents.${name}`,
        message: `'${name}' is not an agent name: ${reservedNameMessage}`,
      });
      expect(body.error.issues).toContainEqual({ path: `$.agents.main.connections[0]`, message: reservedNameMessage });
    }
    const ok = await api(`/api/projects/${slug}/import`, {
      method: "POST",
      json: { agents: { builder: { description: "x" }, main: { description: "y", connections: ["builder"] } } },
    });
    expect(ok.status).toBe(200);
    expect(
      (
        (await api("/api/agents", { headers: { "x-pantheon-project": slug } }).then((r) => r.json())) as {
          agents: { name: string }[];
        }
      ).agents
        .map((a) => a.name)
        .sort(),
    ).toEqual(["builder", "main"]);
  });

  it("as a tool or connection name: a 400 at the field; ordinary names are accepted", async () => {
    const agent = await createAgent();
    const tool = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), runtime: { tools: ["constructor"] } },
    });
    expect(tool.status).toBe(400);
    expect(await issuesOf(tool)).toEqual([{ path: ["runtime", "tools", 0], message: reservedNameMessage }]);
    const httpTool = await api("/api/agents", {
      method: "POST",
      json: {
        name: uniqueName(),
        runtime: {
          allowHosts: ["example.com"],
          httpTools: [{ name: "constructor", description: "d", endpoint: "https://example.com" }],
        },
      },
    });
    expect(await issuesOf(httpTool)).toEqual([
      { path: ["runtime", "httpTools", 0, "name"], message: reservedNameMessage },
    ]);
    const connection = await api(`/api/agents/${agent.name}/connections`, {
      method: "PUT",
      json: { connections: ["constructor"] },
    });
    expect(connection.status).toBe(400);
    expect(await issuesOf(connection)).toEqual([{ path: ["connections", 0], message: reservedNameMessage }]);
    expect(
      (await api(`/api/agents/${agent.name}`, { method: "PATCH", json: { runtime: { tools: ["clock.now"] } } })).status,
    ).toBe(200);
    // A tool list from elsewhere (OpenAI function tools here): the foreign name is refused at its path.
    const importTools = (name: string) =>
      api(`/api/agents/${agent.name}/tools/import`, {
        method: "POST",
        json: {
          format: "openai",
          tools: [{ type: "function", function: { name, parameters: { type: "object", properties: {} } } }],
        },
      });
    const imported = await importTools("constructor");
    expect(imported.status).toBe(400);
    expect(await issuesOf(imported)).toEqual([
      { path: "$.tools[0].function.name", message: `'constructor' cannot be a tool name: ${reservedNameMessage}` },
    ]);
    expect((await importTools("get_weather")).status).toBe(200);
    // A path naming a reserved agent is the same 400, not a lookup of an inherited member.
    const read = await api("/api/agents/constructor");
    expect(read.status).toBe(400);
    expect(await issuesOf(read)).toEqual([{ path: ["name"], message: reservedNameMessage }]);
  });

  it("as a talent, behavior or actor name in a script: a script error at the name; the same script with other names compiles", () => {
    const script = (actor: string, talent: string, behavior: string) =>
      `(actor "${actor}" (description "d") (talent "${talent}" (behavior "${behavior}" :active (goal (input) "g") (plan (input ctx) (message "assistant" :content "hi")))))`;
    for (const names of [
      ["constructor", "t", "b"],
      ["a", "constructor", "b"],
      ["a", "t", "prototype"],
    ] as const) {
      let caught: unknown;
      try {
        compileScript(script(names[0], names[1], names[2]));
      } catch (error) {
        caught = error;
      }
      expect(isScriptError(caught), names.join()).toBe(true);
      if (isScriptError(caught)) expect(caught.issues.map((i) => i.message)).toContainEqual(reservedNameMessage);
    }
    expect(compileScript(script("a", "t", "b")).script.talents[0]!.behaviors[0]!.name).toBe("b");
    // A scheduled behavior's input fields, read as (get input "…").
    const withInput = (field: string) =>
      `(actor "a" (description "d") (talent "t" (behavior "b" :passive :cron "0 7 * * *" :input {:${field} "x"} (goal (input) "g") (plan (input ctx) (message "assistant" :content "hi")))))`;
    let refused: unknown;
    try {
      compileScript(withInput("constructor"));
    } catch (error) {
      refused = error;
    }
    expect(isScriptError(refused) && refused.issues.map((i) => i.message)).toContainEqual(reservedNameMessage);
    expect(compileScript(withInput("repo")).script.talents[0]!.behaviors[0]!.input).toEqual({ repo: "x" });
  });

  it("as a feature, provider or invited person's name: a 400 naming `name` and the rule; an ordinary name is accepted", async () => {
    const orchestrator = (await createAgent()).name;
    // Providers in a project of their own, so the default project's list stays as other tests expect it.
    const slug = uniqueName("names");
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    for (const name of ["constructor", "prototype"]) {
      const feature = await api("/api/features", { method: "POST", json: { name, title: "t", orchestrator } });
      expect(feature.status, name).toBe(400);
      expect(await issuesOf(feature)).toEqual([{ path: ["name"], message: reservedNameMessage }]);
      const provider = await api(`/api/projects/${slug}/providers/${name}`, {
        method: "PUT",
        json: { baseUrl: "https://models.example/v1" },
      });
      expect(provider.status, name).toBe(400);
      expect(await issuesOf(provider)).toEqual([{ path: ["name"], message: reservedNameMessage }]);
    }
    // Object's other members are not lower-case slugs, so feature and provider names refuse them already.
    for (const name of ["__proto__", "toString", "hasOwnProperty"])
      expect((await api(`/api/projects/${slug}/providers/${name}`, { method: "PUT", json: {} })).status, name).toBe(
        400,
      );
    // A person's name may hold capitals and '_', so every member is refused by the rule itself.
    for (const name of ["constructor", "prototype", "toString", "hasOwnProperty", "valueOf"]) {
      const invite = await api("/api/invites", { method: "POST", json: { name } });
      expect(invite.status, name).toBe(400);
      expect(await issuesOf(invite)).toEqual([{ path: ["name"], message: reservedNameMessage }]);
    }
    // The controls: the same routes take ordinary names.
    const feature = uniqueName("constructors").slice(0, 40);
    expect(
      (await api("/api/features", { method: "POST", json: { name: feature, title: "t", orchestrator } })).status,
    ).toBe(201);
    const provider = uniqueName("proto").slice(0, 32);
    expect(
      (
        await api(`/api/projects/${slug}/providers/${provider}`, {
          method: "PUT",
          json: { baseUrl: "https://models.example/v1" },
        })
      ).status,
    ).toBe(200);
    expect((await api("/api/invites", { method: "POST", json: { name: "Constructor Jones" } })).status).toBe(201);
  });

  it("covers every name Object.prototype has, and __proto__ and prototype", () => {
    for (const name of [
      "constructor",
      "__proto__",
      "prototype",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "isPrototypeOf",
      "__defineGetter__",
    ])
      expect(reservedNames.has(name), name).toBe(true);
    expect(reservedNames.has("main")).toBe(false);
  });
});

describe("where a user's name reaches a plain object, only its own keys count", () => {
  const ctx = (overrides: Partial<GateContext> = {}): GateContext => ({
    agent: "scout",
    tools: new Map(),
    now: 1_000_000,
    run: { step: 1, tokens: 0, activeMs: 0, callsByTool: {} },
    limits: defaultRunLimits,
    approvals: new Map(),
    ...overrides,
  });
  const call = (name: string) => ({ call: { id: "c1", name, arguments: { constructor: "x" } } });

  it("ownValue reads own keys, never inherited ones", () => {
    expect(ownValue({ "*": 1 }, "constructor")).toBeUndefined();
    expect(ownValue({ "*": 1 }, "toString")).toBeUndefined();
    expect(ownValue({ constructor: 2 }, "constructor")).toBe(2);
    expect(ownValue(undefined, "x")).toBeUndefined();
  });

  it("a tool named `constructor` (an MCP server's, say) falls under the `*` rate limit, not Object", () => {
    const rateLimits = { "*": { capacity: 1, refillPerSec: 1 } };
    const empty = new Map([[rateKey("scout", "constructor"), { tokens: 0, updatedAt: 1_000_000 }]]);
    expect(rateLimitGate.check(call("constructor"), ctx({ rateLimits, buckets: empty }))).toEqual({
      allow: false,
      reason: "rate limit: 'constructor' allows 1 calls, refilling 1/s; next call possible in 1 s",
    });
    expect(rateLimitGate.check(call("constructor"), ctx({ rateLimits }))).toEqual({ allow: true });
    // No limit at all: nothing inherited is taken for one.
    expect(rateLimitGate.check(call("toString"), ctx({ rateLimits: {} }))).toEqual({ allow: true });
  });

  it("max-calls counts a tool named `constructor` from zero, and a deny-pattern on field `constructor` reads only the argument", () => {
    const maxCalls = makeCustomGate({ name: "once", kind: "max-calls", tool: "*", max: 1 });
    expect(maxCalls.check(call("constructor"), ctx())).toEqual({ allow: true });
    expect(
      maxCalls.check(
        call("constructor"),
        ctx({ run: { step: 1, tokens: 0, activeMs: 0, callsByTool: { constructor: 1 } } }),
      ),
    ).toMatchObject({ allow: false });
    const deny = makeCustomGate({
      name: "no-fn",
      kind: "deny-pattern",
      tool: "*",
      field: "toString",
      pattern: "function",
    });
    expect(deny.check(call("t"), ctx())).toEqual({ allow: true });
    const denyOwn = makeCustomGate({
      name: "no-x",
      kind: "deny-pattern",
      tool: "*",
      field: "constructor",
      pattern: "^x$",
    });
    expect(denyOwn.check(call("t"), ctx())).toMatchObject({ allow: false });
  });

  it("a majority vote on answers `constructor` and `__proto__` counts them like any answer", () => {
    const decision = combineMajority(
      ["a", "b", "c"],
      [
        { target: "a", answer: "constructor" },
        { target: "b", answer: "Constructor." },
      ],
    );
    expect(decision).toMatchObject({ done: true, ok: true, answer: "constructor" });
    expect({ ...(decision as { votes: Record<string, number> }).votes }).toEqual({ constructor: 2 });
    const proto = combineMajority(
      ["a", "b"],
      [
        { target: "a", answer: "__proto__" },
        { target: "b", answer: "__proto__" },
      ],
    );
    expect(proto).toMatchObject({ done: true, ok: true, answer: "__proto__" });
  });
});

describe("a model provider must be one Pantheon knows or one the project names", () => {
  /** A slug: neither built in nor one of the project's providers (the registry says what the project has). */
  const rule = (provider: string, project = "default") =>
    `'${provider}' is not a known provider: use one of openai, anthropic, workers-ai, offline or a provider of project '${project}' (it names none; add one with PUT /api/projects/${project}/providers/${provider})`;
  /** Not even a slug: the schema refuses it. */
  const shape = (provider: string) =>
    `'${provider}' is not a known provider: use one of openai, anthropic, workers-ai, offline or a provider the project names (a lower-case slug)`;

  it("POST and PATCH /api/agents refuse an unknown provider or fallback provider, naming the known ones; known ones are kept", async () => {
    const created = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), model: { provider: "foo", name: "bar" } },
    });
    expect(created.status).toBe(400);
    expect(await issuesOf(created)).toEqual([{ path: ["model", "provider"], message: rule("foo") }]);
    const fallback = await api("/api/agents", {
      method: "POST",
      json: {
        name: uniqueName(),
        model: { provider: "openai", name: "gpt-4o-mini", fallback: { provider: "mistral", name: "large" } },
      },
    });
    expect(await issuesOf(fallback)).toEqual([{ path: ["model", "fallback", "provider"], message: rule("mistral") }]);
    const cascade = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), model: ["openai/gpt-4o-mini", "groq/llama"] },
    });
    expect(await issuesOf(cascade)).toEqual([{ path: ["model", "cascade", 0, "provider"], message: rule("groq") }]);
    const agent = await createAgent({
      model: { provider: "anthropic", name: "claude-haiku-4-5", fallback: { provider: "openai", name: "gpt-4o-mini" } },
    });
    expect(agent.model).toMatchObject({ provider: "anthropic", fallback: { provider: "openai" } });
    const patched = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      json: { model: { provider: "OpenAI", name: "gpt-4o" } },
    });
    expect(await issuesOf(patched)).toEqual([{ path: ["model", "provider"], message: shape("OpenAI") }]);
    const patchedSlug = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      json: { model: { provider: "opnai", name: "gpt-4o" } },
    });
    expect(await issuesOf(patchedSlug)).toEqual([{ path: ["model", "provider"], message: rule("opnai") }]);
    expect(
      (
        await api(`/api/agents/${agent.name}`, {
          method: "PATCH",
          json: { model: { provider: "openai", name: "gpt-4o" } },
        })
      ).status,
    ).toBe(200);
  });

  it("a project file and a script refuse one too, at their paths", async () => {
    const slug = uniqueName("models");
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    const file = await api(`/api/projects/${slug}/import`, {
      method: "POST",
      json: { agents: { main: { description: "x", pantheon: { model: { provider: "foo", name: "bar" } } } } },
    });
    expect(file.status).toBe(400);
    expect(((await file.json()) as { error: { issues: unknown[] } }).error.issues).toEqual([
      { path: "$.agents.main.pantheon.model.provider", message: rule("foo", slug) },
    ]);
    expect(
      (
        await api(`/api/projects/${slug}/import`, {
          method: "POST",
          json: {
            agents: { main: { description: "x", pantheon: { model: { provider: "openai", name: "gpt-4o-mini" } } } },
          },
        })
      ).status,
    ).toBe(200);

    // The compiler knows no project: a name that is not even a slug is its error; a slug is the registry's.
    let caught: unknown;
    try {
      compileScript('(actor "a" (description "d") (model :provider "Foo!" :name "bar"))');
    } catch (error) {
      caught = error;
    }
    expect(isScriptError(caught) && caught.issues.map((i) => i.message)).toContainEqual(shape("Foo!"));
    const { name } = await createAgent();
    const script = await api(`/api/agents/${name}/script`, {
      method: "PUT",
      json: { name, description: "d", talents: [], model: { provider: "foo", name: "bar" } },
    });
    expect(script.status).toBe(400);
    expect(await issuesOf(script)).toEqual([{ path: ["model", "provider"], message: rule("foo") }]);
    expect(
      compileScript('(actor "a" (description "d") (model :provider "openai" :name "gpt-4o"))').script.model.provider,
    ).toBe("openai");
  });
});
