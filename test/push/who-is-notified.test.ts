import { describe, expect, it } from "vitest";
import type { PushJob } from "../../core/push";
import { makePushNotices } from "../../durable-objects/agent/push";

/** The agent's push notices with a run whose principal is `name`, counting the jobs it queues. */
function noticesFor(name: string, trigger = "message") {
  const jobs: PushJob[] = [];
  const store = new Map<string, string>();
  const push = makePushNotices({
    enabled: () => true,
    project: () => "p",
    agent: () => "helper",
    runs: { get: () => ({ sessionId: "s1", state: { origin: { name, trigger } } }) as never },
    redact: (text) => text,
    liveTokens: () => [],
    enqueue: async (job) => void jobs.push(job),
    kv: { get: (k) => store.get(k) as never, put: (k, v) => void store.set(k, v), delete: (k) => store.delete(k) },
    background: () => {},
  });
  push.onRunEvent({ type: "done", status: "completed", reply: { content: "done" } } as never, "run-1");
  return jobs;
}

describe("which turns queue a reply notice", () => {
  it("a person's turn queues one for them; the admin secret's, a plain token's and a door's queue none", () => {
    expect(noticesFor("ana").map((j) => j.person)).toEqual(["ana"]);
    for (const name of ["admin", "token:ci", "ana via openai", "gateway:telegram"])
      expect(noticesFor(name)).toEqual([]);
  });

  it("a peer agent's question (its origin names the asking agent) queues none", () => {
    expect(noticesFor("main", "agent:main")).toEqual([]);
    expect(noticesFor("main", "message")).toHaveLength(1);
  });
});
