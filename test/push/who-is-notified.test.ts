import { describe, expect, it } from "vitest";
import type { PushAudience, PushJob } from "../../core/push";
import { makePushNotices } from "../../durable-objects/agent/push";

const everyone: PushAudience = { version: 1, people: { ana: "chat", main: "chat", bo: "approve" } };

/** The agent's push notices with a run whose principal is `name`, counting the jobs it queues and the registry reads. */
function agentPush(
  name: string | undefined,
  trigger = "message",
  audience: PushAudience = everyone,
  notifying: string[] = [],
) {
  const jobs: PushJob[] = [];
  const pending: Promise<unknown>[] = [];
  const store = new Map<string, unknown>();
  let reads = 0;
  let runReads = 0;
  let storageReads = 0;
  const push = makePushNotices({
    enabled: () => true,
    project: () => "p",
    agent: () => "helper",
    run: () => {
      runReads++;
      return {
        sessionId: "s1",
        origin: { name, trigger },
        calls: [{ status: "proposed", call: { name: "clock.now" }, approverScope: "approve" }],
      } as never;
    },
    redact: (text) => text,
    liveTokens: () => [],
    enqueue: async (job) => void jobs.push(job),
    kv: {
      get: (k) => {
        storageReads++;
        return store.get(k) as never;
      },
      put: (k, v) => void store.set(k, v),
      delete: (k) => store.delete(k),
      list: ({ prefix }) => {
        storageReads++;
        return [...store].filter(([k]) => k.startsWith(prefix)) as never;
      },
    },
    background: (work) => void pending.push(work),
    notifies: (key) => notifying.includes(key),
    fetchAudience: async () => {
      reads++;
      return audience;
    },
  });
  const settled = async () => {
    while (pending.length) await pending.shift();
    return jobs;
  };
  const reply = (content = "done") =>
    push.onRunEvent({ type: "done", status: "completed", reply: { content } } as never, "r1");
  const approval = () => push.onRunEvent({ type: "status", status: "waiting_approval" } as never, "r1");
  return {
    push,
    jobs,
    settled,
    reply,
    approval,
    reads: () => reads,
    cost: () => ({ runReads, storageReads }),
    store,
  };
}

async function noticesFor(name: string | undefined, trigger = "message") {
  const a = agentPush(name, trigger);
  a.reply();
  return a.settled();
}

describe("which turns queue a reply notice", () => {
  it("a person's turn queues one for them; the admin secret's, a plain token's and a door's queue none", async () => {
    expect((await noticesFor("ana")).map((j) => j.person)).toEqual(["ana"]);
    for (const name of ["admin", "token:ci", "ana via openai", "gateway:telegram"])
      expect(await noticesFor(name)).toEqual([]);
  });

  it("a person's message an active behavior took queues a reply notice for them; a scheduled run (said by no one) none", async () => {
    expect((await noticesFor("ana", "behavior:work/greet")).map((j) => [j.person, j.notice.tag])).toEqual([
      ["ana", "reply:s1"],
    ]);
    expect(await noticesFor(undefined, "behavior:work/greet")).toEqual([]);
  });

  it("a peer agent's question (its origin names the asking agent) queues none", async () => {
    expect(await noticesFor("main", "agent:main")).toEqual([]);
    expect(await noticesFor("main", "message")).toHaveLength(1);
  });
});

describe("a notice no device could get queues no job", () => {
  it("a person's turn with no subscribed device of theirs queues nothing; control: once they subscribe, the same turn queues one", async () => {
    const a = agentPush("cy", "message", { version: 1, people: { ana: "admin" } });
    a.reply();
    expect(await a.settled()).toEqual([]);
    // The registry hands the agent its new copy when cy's device subscribes (workers/push-audience.ts).
    a.push.audienceChanged({ version: 2, people: { ana: "admin", cy: "chat" } });
    a.reply();
    expect((await a.settled()).map((j) => j.person)).toEqual(["cy"]);
    // The registry was read once, for the first notice: the copy is kept from then on.
    expect(a.reads()).toBe(1);
  });

  it("an approval is queued even with no device that may decide it (the badge counts what waits); a reply is not", async () => {
    const a = agentPush("ana", "message", { version: 1, people: { bo: "chat" } });
    a.approval();
    expect((await a.settled()).map((j) => [j.scope, j.notice.tag])).toEqual([["approve", "approval:r1"]]);
    // The run ends: its approval's notice clears (queued too, so the count drops), and the reply to
    // ana, who has no device, is not queued.
    a.reply();
    expect((await a.settled()).map((j) => [j.notice.tag, j.notice.clear ?? false])).toEqual([
      ["approval:r1", false],
      ["approval:r1", true],
    ]);
  });

  it("an older copy arriving after a newer one is not kept", async () => {
    const a = agentPush("cy", "message", { version: 1, people: {} });
    a.push.audienceChanged({ version: 3, people: { cy: "chat" } });
    a.push.audienceChanged({ version: 2, people: {} });
    a.reply();
    expect((await a.settled()).map((j) => j.person)).toEqual(["cy"]);
    expect(a.reads()).toBe(0);
  });
});

describe("what a turn costs the agent's push notices", () => {
  it("runs with no approval notice waiting read storage once after a wake, and a peer agent's turn reads nothing more; control: an approval noticed before an eviction still clears after it", async () => {
    const bus = agentPush("main", "agent:main");
    for (let i = 0; i < 5; i++) {
      bus.push.onRunEvent({ type: "status", status: "running" } as never, `r${i}`);
      bus.push.onRunEvent({ type: "status", status: "completed" } as never, `r${i}`);
      bus.push.onRunEvent({ type: "done", status: "completed", reply: { content: "ok" } } as never, `r${i}`);
    }
    expect(await bus.settled()).toEqual([]);
    // One storage listing for all fifteen events (none per event), and the run read from memory once per reply.
    expect(bus.cost()).toEqual({ runReads: 5, storageReads: 1 });

    // The control: an approval's notice is kept in storage; a new instance over that storage (after
    // an eviction) still sends the clearing notice when the run ends.
    const before = agentPush("ana");
    before.approval();
    await before.settled();
    const after = agentPush("ana");
    for (const [k, v] of before.store) after.store.set(k, v);
    after.push.onRunEvent({ type: "done", status: "completed", reply: null } as never, "r1");
    expect((await after.settled()).map((j) => [j.notice.tag, j.notice.clear])).toEqual([["approval:r1", true]]);
  });
});

describe("a behavior's result notifies when its script says :notify", () => {
  it("a scheduled run of a :notify behavior pushes its result line to everyone who may chat; control: one without :notify pushes nothing", async () => {
    const loud = agentPush(undefined, "behavior:work/report", everyone, ["work/report"]);
    loud.reply("The weekly report is ready: 3 new issues.");
    const [job] = await loud.settled();
    expect(job).toMatchObject({ scope: "chat", unlessLooking: true });
    expect(job!.person).toBeUndefined();
    expect(job!.notice).toEqual({
      title: "helper: report",
      body: "The weekly report is ready: 3 new issues.",
      url: "/?project=p#/agents/helper/chat?session=s1",
      tag: "behavior:helper:report",
    });
    const quiet = agentPush(undefined, "behavior:work/tidy", everyone, ["work/report"]);
    quiet.reply("tidied");
    expect(await quiet.settled()).toEqual([]);
  });

  it("a run a person's message set off tells that person only; one an operator's token set off tells no one", async () => {
    const said = agentPush("ana", "behavior:work/report", everyone, ["work/report"]);
    said.reply();
    expect((await said.settled()).map((j) => j.person)).toEqual(["ana"]);
    const operator = agentPush("token:ci", "behavior:work/report", everyone, ["work/report"]);
    operator.reply();
    expect(await operator.settled()).toEqual([]);
  });
});
