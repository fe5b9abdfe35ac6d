import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("smoke", () => {
  it("reaches an AgentDO over RPC", async () => {
    const stub = env.AGENT.get(env.AGENT.idFromName("smoke"));
    expect(await (stub as any).ping()).toBe("pong");
  });
});
