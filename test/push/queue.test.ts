import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/index";
import { api } from "../api/client";
import { device, notices, recorded } from "./devices";

// The push queue's consumer (workers/push-queue.ts): a job an agent or a feature queued is sent to
// each device of the people it names; a message that is not a job is dropped, not retried.

async function consume(body: unknown) {
  const batch = createMessageBatch("pantheon-push", [{ id: "p1", timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

const job = (person: string, notice: Record<string, unknown>) => ({
  kind: "push",
  project: "default",
  agent: "any-agent",
  scope: "chat",
  person,
  notice,
});

describe("the push queue's consumer", () => {
  it("drops a message that is not a push job; control: a job for a person reaches their device", async () => {
    const d = await device("chat");
    const notice = { title: "t", body: "a line", url: "/#/agents", tag: "reply:s1" };
    const bad = await consume({ ...job(d.person, notice), notice: { ...notice, body: "x".repeat(500) } });
    expect(bad).toMatchObject({ explicitAcks: ["p1"], retryMessages: [] });
    expect(await recorded(d)).toEqual([]);

    const good = await consume(job(d.person, notice));
    expect(good).toMatchObject({ explicitAcks: ["p1"], retryMessages: [] });
    expect(await notices(d)).toEqual([notice]);
  });

  it("skips a person looking at the chat when the job says so; control: the same job without their token goes", async () => {
    const d = await device("chat");
    const notice = { title: "t", body: "a line", url: "/#/agents", tag: "reply:s2" };
    const listed = (await (await api("/api/push/subscriptions")).json()) as any;
    const tokenId = listed.subscriptions.find((s: any) => s.person === d.person).tokenId;
    await consume({ ...job(d.person, notice), unlessLooking: true, looking: [tokenId] });
    expect(await recorded(d)).toEqual([]);
    await consume({ ...job(d.person, notice), unlessLooking: true, looking: ["someone-else"] });
    expect(await notices(d)).toEqual([notice]);
  });
});
