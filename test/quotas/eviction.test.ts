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
