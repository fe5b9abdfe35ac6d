// The behavior rule table (docs/behaviors.md), one test per cell, and the rule that a
// message is stored once, in the person's words, with one reply.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/index";
import { api, createAgent, uniqueName } from "../api/client";
import { agentObject, getJson, insideAgent, putScript, runsOf, schedulesOf } from "./helpers";

/** An agent (offline model) with the given behaviors in one talent "work". */
async function agentWith(behaviors: string) {
  const agent = await createAgent();
  const put = await putScript(
    agent.name,
    `(actor "${agent.name}" (description "Rules") (tools "clock.now") (talent "work" ${behaviors}))`,
  );
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return agent.name;
}

/** A behavior whose plan answers `reply` (deterministic: no model). */
const says = (name: string, mode: string, reply: string, extra = "") =>
  `(behavior "${name}" ${mode} ${extra} (goal (input) (concat "${name} goal: " (get input "text"))) (plan (input ctx) (message "assistant" :content "${reply}")))`;

const send = async (name: string, content: string, more: Record<string, unknown> = {}) =>
  (await api(`/api/agents/${name}/messages`, { method: "POST", json: { content, ...more } }).then((r) =>
    r.json(),
  )) as any;
/** The session's history, oldest first. */
const history = async (name: string) =>
  (await getJson(`/api/agents/${name}/messages?limit=200`)).messages
    .map((m: any) => `${m.role}: ${m.content}`)
    .reverse();
const byTrigger = async (name: string, trigger: string) => (await runsOf(name)).filter((r) => r.trigger === trigger);

/** Makes the agent busy: a run with work in flight (written, not yet driven). */
async function makeBusy(name: string): Promise<string> {
  const { defaultRunLimits } = await import("../../core/run");
  return insideAgent(
    agentObject(name),
    (instance: any) =>
      instance.features.driver.create({
        agent: name,
        sessionId: instance.features.sessions.resolve().id,
        limits: defaultRunLimits,
        origin: { trigger: "message", content: "still working" },
      }).runId,
  );
}

/** Moves the behaviors' clock marks (last activity, last runs) back by `ms`, as if that much time had passed since. */
async function idleFor(name: string, ms: number) {
  await insideAgent(agentObject(name), (instance: any) => {
    const book = instance.features.settings.get("behaviors");
    const states = Object.fromEntries(
      Object.entries(book.states).map(([key, state]: [string, any]) => [
        key,
        { ...state, lastRunAt: state.lastRunAt === null ? null : state.lastRunAt - ms },
      ]),
    );
    instance.features.settings.set("behaviors", { ...book, states, lastActivityAt: book.lastActivityAt - ms });
  });
}

async function cronTick(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("message × active: one behavior per message", () => {
  it("two active behaviors and one message: one run, one stored message in the person's words, one reply", async () => {
    const name = await agentWith(
      `${says("greet", ":active", "Hello from greet")} ${says("log", ":active", "said it")}`,
    );
    const body = await send(name, "hi there");
    expect(body.reply.content).toBe("Hello from greet");
    expect(await history(name)).toEqual(["user: hi there", "assistant: Hello from greet"]);
    expect((await runsOf(name)).map((r) => r.trigger)).toEqual(["behavior:work/greet"]);
    // The goal is in the run's context and trace, not the history.
    const { trace } = await getJson(`/api/agents/${name}/runs/${body.runId}`);
    expect(trace.find((s: any) => s.name === "run_started").data).toMatchObject({
      message: "hi there",
      goal: "greet goal: hi there",
    });
  });

  it("the highest :priority takes the message; :when chooses which messages a behavior takes; none matching is plain chat", async () => {
    const name = await agentWith(
      `${says("general", ":active", "general")} ${says("review", ":active", "reviewing", ':when ["diff" "pr"] :priority 5')} ${says("repo", ":active", "repo input", ':when {:has ["repo"]} :priority 9')}`,
    );
    expect((await send(name, "please check this diff")).reply.content).toBe("reviewing");
    expect((await send(name, "good morning")).reply.content).toBe("general");
    expect((await send(name, "look at the diff", { input: { repo: "acme/api" } })).reply.content).toBe("repo input");
    // Without a catch-all, a message no :when matches is the agent's plain chat turn (the offline model).
    const picky = await agentWith(says("review", ":active", "reviewing", ':when "diff"'));
    const plain = await send(picky, "what time is it?");
    expect(plain.status).toBe("completed");
    expect((await runsOf(picky))[0].trigger).toBe("message");
    expect(await history(picky)).toEqual(["user: what time is it?", `assistant: ${plain.reply.content}`]);
  });

  it("a paused behavior does not take messages: the next one does", async () => {
    const name = await agentWith(
      `${says("first", ":active", "first", ":priority 2")} ${says("second", ":active", "second")}`,
    );
    expect((await send(name, "x")).reply.content).toBe("first");
    expect((await api(`/api/agents/${name}/schedules/first/pause`, { method: "POST" })).status).toBe(200);
    expect((await send(name, "y")).reply.content).toBe("second");
  });
});

describe("schedule × active, idle × active: an active behavior has no trigger", () => {
  it("refuses an active behavior with (every …) or (on-idle …), naming the field; the same behavior without one is set", async () => {
    const name = (await createAgent()).name;
    for (const trigger of ['(every "1h")', '(on-idle "5m")']) {
      const put = await putScript(
        name,
        `(actor "${name}" (description "x") (talent "t" ${says("greet", ":active", "hi", trigger)}))`,
      );
      expect(put.status).toBe(400);
      expect(JSON.stringify(put.body)).toContain("runs on each message and takes no trigger");
    }
    expect(
      (await putScript(name, `(actor "${name}" (description "x") (talent "t" ${says("greet", ":active", "hi")}))`))
        .status,
    ).toBe(200);
    expect((await schedulesOf(name))[0]).toMatchObject({ trigger: "message", nextRunAt: null });
  });
});

describe("message × passive: a passive behavior never takes a message", () => {
  it("a message to an agent whose only behavior is passive is plain chat; :when on a passive behavior is refused", async () => {
    const name = await agentWith(says("tidy", ":passive", "tidied", '(every "1h")'));
    const body = await send(name, "hello");
    expect((await runsOf(name)).map((r) => r.trigger)).toEqual(["message"]);
    expect(await history(name)).toEqual(["user: hello", `assistant: ${body.reply.content}`]);
    const other = (await createAgent()).name;
    const put = await putScript(
      other,
      `(actor "${other}" (description "x") (talent "t" ${says("tidy", ":passive", "t", '(every "1h") :when "diff"')}))`,
    );
    expect(put.status).toBe(400);
    expect(JSON.stringify(put.body)).toContain("never takes a message");
  });
});

describe("message × persistent: a persistent behavior takes part in the choice", () => {
  it("a persistent behavior whose :when matches takes the message over a lower-priority active one", async () => {
    const name = await agentWith(
      `${says("chat", ":active", "chat")} ${says("watch", ":persistent", "watching", '(every "1h") :when "alert" :priority 1')}`,
    );
    expect((await send(name, "an alert fired")).reply.content).toBe("watching");
    expect((await send(name, "hello")).reply.content).toBe("chat");
    expect(await history(name)).toEqual([
      "user: an alert fired",
      "assistant: watching",
      "user: hello",
      "assistant: chat",
    ]);
  });
});

describe("schedule × passive and persistent", () => {
  it("on its minute, a busy agent defers the passive behavior and runs the persistent one; the goal never enters the history", async () => {
    const name =
      await agentWith(`(behavior "tidy" :passive (cron "10 4 * * *") (goal (input) "tidy up") (plan (input ctx) (message "assistant" :content "tidied")))
      (behavior "watch" :persistent (cron "10 4 * * *") (goal (input) "watch the logs") (plan (input ctx) (message "assistant" :content "watched")))`);
    await makeBusy(name);
    await cronTick(Date.UTC(2031, 4, 6, 4, 10));
    expect((await byTrigger(name, "behavior:work/watch")).map((r) => r.status)).toEqual(["completed"]);
    expect(await byTrigger(name, "behavior:work/tidy")).toHaveLength(0);
    expect((await schedulesOf(name)).find((v: any) => v.behavior === "tidy")).toMatchObject({ lastStatus: "deferred" });
    // No one said "watch the logs": the history holds the agent's reply and no such message (the other is the busy run's).
    expect(await history(name)).toEqual(["user: still working", "assistant: watched"]);
    const [run] = await byTrigger(name, "behavior:work/watch");
    const { trace } = await getJson(`/api/agents/${name}/runs/${run.id}`);
    expect(trace.find((s: any) => s.name === "run_started").data.goal).toBe("watch the logs");
  });
});

describe("idle × passive and persistent", () => {
  const nudge = (mode: string) =>
    `(behavior "nudge" ${mode} (on-idle "1h") (goal (input) "nudge") (plan (input ctx) (message "assistant" :content "Still there?")))`;
  const payload = { key: "work/nudge", kind: "idle", at: 0 };

  it("an idle alarm delivered twice (two alarm invocations at once, then again) runs the behavior once per idle stretch", async () => {
    const name = await agentWith(nudge(":passive"));
    await idleFor(name, 2 * 3_600_000);
    await insideAgent(agentObject(name), async (instance: any) => {
      await Promise.all([instance.onBehaviorAlarm(payload), instance.onBehaviorAlarm(payload)]);
      await instance.onBehaviorAlarm(payload);
    });
    expect(await byTrigger(name, "behavior:work/nudge")).toHaveLength(1);
    // A person writes: a new idle stretch, and the behavior runs again once it is idle again.
    await send(name, "back");
    await idleFor(name, 2 * 3_600_000);
    await insideAgent(agentObject(name), (instance: any) => instance.onBehaviorAlarm(payload));
    expect(await byTrigger(name, "behavior:work/nudge")).toHaveLength(2);
  });

  it("an evicted agent re-delivered the same idle alarm runs nothing more", async () => {
    const name = await agentWith(nudge(":passive"));
    await idleFor(name, 2 * 3_600_000);
    await insideAgent(agentObject(name), (instance: any) => instance.onBehaviorAlarm(payload));
    await expect(
      insideAgent(agentObject(name), (_: any, state: DurableObjectState) => state.abort()),
    ).rejects.toThrow();
    await insideAgent(agentObject(name), (instance: any) => instance.onBehaviorAlarm(payload));
    expect(await byTrigger(name, "behavior:work/nudge")).toHaveLength(1);
    expect((await schedulesOf(name))[0].nextRunAt).toBeNull();
  });

  it("idle while a run is in flight: the passive behavior waits, the persistent one runs", async () => {
    const passive = await agentWith(nudge(":passive"));
    const persistent = await agentWith(nudge(":persistent"));
    for (const name of [passive, persistent]) {
      await makeBusy(name);
      await idleFor(name, 2 * 3_600_000);
      await insideAgent(agentObject(name), (instance: any) => instance.onBehaviorAlarm(payload));
    }
    expect(await byTrigger(passive, "behavior:work/nudge")).toHaveLength(0);
    expect((await schedulesOf(passive))[0]).toMatchObject({ lastStatus: "deferred" });
    expect((await byTrigger(persistent, "behavior:work/nudge")).map((r) => r.status)).toEqual(["completed"]);
  });
});

describe("the JSON form", () => {
  it("takes when and priority, and refuses a bad one naming the field", async () => {
    const name = uniqueName("json");
    const behavior = (extra: object) => ({
      name: "review",
      mode: "active",
      goal: "g",
      plan: { steps: [{ kind: "message", role: "assistant", content: "ok" }] },
      ...extra,
    });
    const script = (extra: object) => ({
      name,
      description: "x",
      talents: [{ name: "t", behaviors: [behavior(extra)] }],
    });
    const bad = await putScript(name, script({ when: { contains: [] } }));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("when");
    const good = await putScript(name, script({ when: { contains: ["diff"] }, priority: 3 }));
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    expect((await send(name, "a diff")).reply.content).toBe("ok");
  });
});
