import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { quotaProject } from "./helpers";

/** Drops an object's instance with whatever it held in memory, as a deploy or a restart does. */
async function evict(namespace: DurableObjectNamespace, name: string) {
  const stub = namespace.get(namespace.idFromName(name));
  await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evicted"))).rejects.toThrow();
}

describe("the day's counters survive an eviction (agent and registry)", () => {
  it("an evicted agent still knows what it spent today: its cap still holds", async () => {
    const p = await quotaProject();
    const agent = await p.agent({ limits: { tokensPerDay: 50 } });
    expect((await agent.send("one")).body.status).toBe("completed");
    expect((await agent.send("two")).body.status).toBe("completed");
    await evict(env.AGENT_DO, `${p.slug}.${agent.name}`);
    const third = await agent.send("three");
    expect(third.body.status).toBe("failed");
    expect(third.body.error).toContain("has used 60 tokens of its 50 tokens per day");
    expect(await agent.calls()).toHaveLength(2);
  });

  it("an evicted registry and agents still hold the project's cap (the lease book is stored)", async () => {
    const p = await quotaProject();
    await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: 60 } });
    const a = await p.agent();
    const b = await p.agent();
    expect((await a.send("one")).body.status).toBe("completed");
    expect((await b.send("two")).body.status).toBe("completed");
    await evict(env.REGISTRY as unknown as DurableObjectNamespace, p.slug);
    await evict(env.AGENT_DO, `${p.slug}.${a.name}`);
    const third = await a.send("three");
    expect(third.body.status).toBe("failed");
    expect(third.body.error).toContain(`project '${p.slug}' has used 60 tokens of its 60 tokens per day`);
    // Positive control: the day's spend is still reported after the evictions.
    expect((await p.json("/api/quotas")).body.project.used.tokens).toBe(60);
  });
});

describe("a spawned agent cannot escape its parent's caps", () => {
  it("the child's daily caps are at most its parent's, whatever its script says", async () => {
    const p = await quotaProject();
    const put = await p.json("/api/agents/boss/script", {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: `(actor "boss" (description "Delegates.") (limits :tokens-per-day 100 :usd-per-day 0.5) (spawn :allowed true :quota 2))`,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName(p.slug)) as unknown as {
      spawnChild(
        parent: string,
        source: string,
      ): Promise<{ ok: boolean; value: { child: { runtime: { limits: Record<string, unknown> } } } }>;
    };
    const greedy = await registry.spawnChild(
      "boss",
      `(actor "greedy" (description "Spends.") (limits :tokens-per-day 1000000 :max-steps 4))`,
    );
    expect(greedy.ok).toBe(true);
    expect(greedy.value.child.runtime.limits).toEqual({ tokensPerDay: 100, usdPerDay: 0.5, maxSteps: 4 });
    // Positive control: a child that asks for less keeps its own, tighter caps.
    const frugal = await registry.spawnChild(
      "boss",
      `(actor "frugal" (description "Saves.") (limits :tokens-per-day 10))`,
    );
    expect(frugal.value.child.runtime.limits).toEqual({ tokensPerDay: 10, usdPerDay: 0.5 });
  });
});
