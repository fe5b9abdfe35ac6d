import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compileScript, printScript } from "../../core/dsl";
import { agentObjectName } from "../../durable-objects/stubs";
import { preview, remember, say, storageOf } from "../memory/helpers";
import { api, createAgent, uniqueName, type ErrorBody } from "./client";

const issuesOf = async (res: Response) => ((await res.json()) as ErrorBody).error.details?.issues ?? [];
const toolNames = async (agent: string) =>
  ((await (await api(`/api/agents/${agent}/tools`)).json()) as { tools: { name: string }[] }).tools.map((t) => t.name);

describe("the tool denylist", () => {
  it("a denied tool is neither listed nor callable, whatever declares it; the others still are (positive control)", async () => {
    const { name } = await createAgent({
      runtime: {
        tools: ["clock.now", "http.fetch"],
        allowHosts: ["example.com"],
        denyTools: ["http.*", "memory.forget"],
      },
    });
    const tools = await toolNames(name);
    expect(tools).toContain("clock.now");
    expect(tools).toContain("memory.search");
    expect(tools).not.toContain("http.fetch");
    expect(tools).not.toContain("memory.forget");
    const denied = await api(`/api/agents/${name}/tools/http.fetch/invoke`, {
      method: "POST",
      json: { arguments: { url: "https://example.com" } },
    });
    expect(denied.status).toBe(404);
    const allowed = await api(`/api/agents/${name}/tools/clock.now/invoke`, {
      method: "POST",
      json: { arguments: {} },
    });
    expect(allowed.status).toBe(200);
  });

  it("refuses an entry that is neither a tool name nor a prefix, at its path", async () => {
    const res = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), runtime: { denyTools: ["http fetch"] } },
    });
    expect(res.status).toBe(400);
    expect((await issuesOf(res))[0]).toMatchObject({
      path: ["runtime", "denyTools", 0],
      message: "a tool name such as http.fetch, or a prefix such as memory.*",
    });
  });
});

describe("the memory policy", () => {
  async function talk(agent: string, turns: number): Promise<string> {
    let session = "";
    for (let i = 0; i < turns; i++)
      session = (await say(agent, `message number ${i} about tulips`, session || undefined)).sessionId;
    return session;
  }

  it("summary (the default) folds what leaves the window; window keeps only the window and never summarises", async () => {
    const summary = await createAgent({ runtime: { limits: { maxHistory: 2 } } });
    const window = await createAgent({ runtime: { limits: { maxHistory: 2 }, memory: { policy: "window" } } });
    const s1 = await talk(summary.name, 4);
    const s2 = await talk(window.name, 4);
    const withSummary = await preview(summary.name, "tulips", `&session=${s1}`);
    const windowOnly = await preview(window.name, "tulips", `&session=${s2}`);
    expect(withSummary.summary).toBeTruthy();
    expect(windowOnly.summary).toBeNull();
    // The window: the last two messages of the session, then the request itself.
    const history = windowOnly.messages.filter((m) => m.role !== "system");
    expect(history.map((m) => m.content)).toEqual([
      expect.stringContaining("message number 3"),
      expect.any(String),
      "tulips",
    ]);
  });

  it("none compiles only the request: no history, no memories", async () => {
    const none = await createAgent({ runtime: { memory: { policy: "none" } } });
    await remember(none.name, "The user loves tulips from Amsterdam");
    const session = await talk(none.name, 2);
    const view = await preview(none.name, "tulips", `&session=${session}`);
    expect(view.messages.filter((m) => m.role !== "system").map((m) => m.content)).toEqual(["tulips"]);
    expect(view.items.filter((item) => item.included && item.kind !== "message")).toEqual([]);
  });
});

describe("the memory time to live", () => {
  it("a memory older than the TTL is not compiled, and the idle upkeep deletes it; a fresh one stays (positive control)", async () => {
    const { name } = await createAgent({ runtime: { memory: { ttlMs: 3_600_000 } } });
    const old = await remember(name, "The old gate code is 1234 for the tulip shed");
    const fresh = await remember(name, "The new gate code is 5678 for the tulip shed");
    // Age the first memory by two hours, in the agent's own SQLite.
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName("default", name)));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE memories SET created_at = created_at - 7200000 WHERE id = ?", old.id);
    });
    const view = await preview(name, "gate code tulip shed");
    const included = view.items.filter((item) => item.included).map((item) => item.id);
    expect(included).toContain(fresh.id);
    expect(included).not.toContain(old.id);

    expect((await api(`/api/agents/${name}/memories/consolidate`, { method: "POST" })).status).toBeLessThan(300);
    const kept = (await storageOf(name)).memories;
    expect(kept).toContain(fresh.id);
    expect(kept).not.toContain(old.id);
  });

  it("refuses a TTL under a minute, naming the floor", async () => {
    const res = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), runtime: { memory: { ttlMs: 10 } } },
    });
    expect((await issuesOf(res))[0]).toMatchObject({
      path: ["runtime", "memory", "ttlMs"],
      message: "at least 60000 (one minute)",
    });
  });
});

describe("the knobs in a script", () => {
  const source = `(actor "scout"
  (description "Finds things")
  (model :provider "openai" :name "gpt-4o-mini" :top-p 0.5 :cascade ["anthropic/claude-haiku-4-5"] :allowed ["openai/gpt-4o"] :breaker {:threshold 2 :cooldown-ms 5000})
  (tools "clock.now" "http.fetch")
  (deny-tools "http.*")
  (memory :policy "window" :ttl-ms 86400000))`;

  it("the DSL compiles them, and printing gives back the same script", () => {
    const { script } = compileScript(source);
    expect(script.model).toMatchObject({
      topP: 0.5,
      cascade: [{ provider: "anthropic", name: "claude-haiku-4-5" }],
      allowed: ["openai/gpt-4o"],
      breaker: { threshold: 2, cooldownMs: 5000 },
    });
    expect(script.denyTools).toEqual(["http.*"]);
    expect(script.memory).toEqual({ policy: "window", ttlMs: 86_400_000 });
    expect(compileScript(printScript(script)).script).toEqual(script);
  });

  it("a script sets the agent's denylist and memory policy", async () => {
    const { name } = await createAgent();
    const res = await api(`/api/agents/${name}/script`, {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: source.replace('"scout"', `"${name}"`),
    });
    expect(res.status).toBe(200);
    const agent = (await (await api(`/api/agents/${name}`)).json()) as {
      runtime: { denyTools?: string[]; memory?: unknown };
      model: { topP?: number };
    };
    expect(agent.runtime.denyTools).toEqual(["http.*"]);
    expect(agent.runtime.memory).toEqual({ policy: "window", ttlMs: 86_400_000 });
    expect(agent.model.topP).toBe(0.5);
    expect(await toolNames(name)).not.toContain("http.fetch");
  });

  it("a bad memory policy in the DSL is an error at its place", () => {
    expect(() => compileScript('(actor "a" (description "d") (memory :policy 3))')).toThrow(
      /"none", "window" or "summary"/,
    );
  });
});
