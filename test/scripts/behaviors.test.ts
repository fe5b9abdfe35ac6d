import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/index";
import { api, createAgent, uniqueName } from "../api/client";
import {
  agentObject,
  behaviorAlarms,
  insideAgent,
  getJson,
  httpTool,
  putScript,
  runsOf,
  schedulesOf,
  toolCalls,
  untilAlarmed,
} from "./helpers";

/** An agent with one HTTP tool `notes.add` (served by the double under `key`) and the given talent. */
async function agentWith(talent: string, options: { failing?: boolean; extra?: string } = {}) {
  const key = crypto.randomUUID();
  const agent = await createAgent({
    runtime: {
      tools: ["clock.now"],
      allowHosts: ["127.0.0.1"],
      httpTools: [httpTool("notes.add", key, options.failing ? 500 : undefined)],
    },
  });
  const source = `(actor "${agent.name}" (description "Behaves") (tools "clock.now" "notes.add")${options.extra ?? ""}
  (talent "work" ${talent}))`;
  const put = await putScript(agent.name, source);
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return { name: agent.name, key, source };
}

const behaviorRuns = async (name: string, behavior: string) =>
  (await runsOf(name)).filter((r) => r.trigger === `behavior:work/${behavior}`);

describe("behaviors on each message", () => {
  it("a deterministic plan runs its tools without a model, passing $prev along, traced like any run", async () => {
    const { name, key } = await agentWith(`(behavior "note-time" :active
      (goal (input) (get input "text"))
      (plan (input ctx) (sequence
        (tool "clock.now")
        (tool "notes.add" :args {:text (concat "time: " "$prev")})
        (message "assistant" :content (concat "noted " (get input "text"))))))`);
    const res = await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "lunch" } });
    const body = (await res.json()) as any;
    expect(body.status).toBe("completed");
    expect(body.reply.content).toBe("noted lunch");
    const [call] = (await toolCalls(key)).map((c) => c.body);
    expect(call.text).toMatch(/^time: \{"iso":"\d{4}-/);
    const runs = await runsOf(name);
    expect(runs[0]).toMatchObject({ id: body.runId, trigger: "behavior:work/note-time", status: "completed" });
    const { trace } = await getJson(`/api/agents/${name}/runs/${body.runId}`);
    expect(trace.filter((s: any) => s.name === "tool_call").map((s: any) => s.data.tool)).toEqual([
      "clock.now",
      "notes.add",
    ]);
    // Both tool calls, then the plan's last word (its reply) passed the output gates.
    expect(trace.filter((s: any) => s.name === "gate_decisions").map((s: any) => s.data.tool ?? s.data.output)).toEqual(
      ["clock.now", "notes.add", "reply"],
    );
  });

  it("a (remember …) step stores a memory", async () => {
    const { name } = await agentWith(`(behavior "keep" :active
      (goal (input) (get input "text"))
      (plan (input ctx) (sequence (remember (concat "The user likes " (get input "text"))) (message "assistant" :content "Noted."))))`);
    const body = (await (
      await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "green tea" } })
    ).json()) as any;
    expect(body.reply.content).toBe("Noted.");
    const listed = await getJson(`/api/agents/${name}/memories?limit=50`);
    expect(JSON.stringify(listed)).toContain("The user likes green tea");
  });

  it("a (think) plan hands the goal to the agent's model", async () => {
    const { name } = await agentWith(
      `(behavior "reply" :active (goal (input) (concat "Say hi to " (get input "text"))) (plan (input ctx) (think)))`,
    );
    const body = (await (
      await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "Ada" } })
    ).json()) as any;
    expect(body.status).toBe("completed");
    // The person's words are stored; the goal is in the run's context and trace.
    expect(body.userMessage.content).toBe("Ada");
    const { trace } = await getJson(`/api/agents/${name}/runs/${body.runId}`);
    expect(trace.find((s: any) => s.name === "goals").data.behavior).toBe("Say hi to Ada");
    expect(body.reply.content.length).toBeGreaterThan(0);
    expect((await runsOf(name))[0].trigger).toBe("behavior:work/reply");
  });
});

describe("behaviors that run on their own", () => {
  it("an `every` behavior fires on the agent's alarm", async () => {
    const { name, key } = await agentWith(
      `(behavior "tick" :passive (every "1s") (goal (input) "tick") (plan (input ctx) (tool "notes.add" :args {:text "tick"})))`,
    );
    const [listed] = await schedulesOf(name);
    expect(listed).toMatchObject({
      talent: "work",
      behavior: "tick",
      mode: "passive",
      trigger: "every 1s",
      paused: false,
      failures: 0,
    });
    expect(listed.nextRunAt).toBeGreaterThan(0);
    const runs = await untilAlarmed(
      name,
      () => behaviorRuns(name, "tick"),
      (r) => r.some((x) => x.status === "completed"),
      "a tick run",
    );
    expect(runs[0]).toMatchObject({ trigger: "behavior:work/tick" });
    expect((await toolCalls(key))[0].body).toEqual({ text: "tick" });
    expect((await schedulesOf(name))[0]).toMatchObject({ lastStatus: "completed", lastRunAt: expect.any(Number) });
  });

  it("an `on-idle` behavior fires once the agent has been idle for its duration", async () => {
    const { name } = await agentWith(
      `(behavior "nudge" :passive (on-idle "1s") (goal (input) "nudge") (plan (input ctx) (message "assistant" :content "Still there?")))`,
    );
    const runs = await untilAlarmed(
      name,
      () => behaviorRuns(name, "nudge"),
      (r) => r.length > 0 && r[0].status === "completed",
      "an idle run",
    );
    expect(runs).toHaveLength(1);
    const { messages } = await getJson(`/api/agents/${name}/messages`);
    expect(messages).toContainEqual(expect.objectContaining({ role: "assistant", content: "Still there?" }));
    // Fired for this idle stretch: nothing more is armed until a person writes again.
    expect((await schedulesOf(name))[0].nextRunAt).toBeNull();
    await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "back" } });
    expect((await schedulesOf(name))[0].nextRunAt).toBeGreaterThan(0);
  });

  it("a cron behavior runs when the worker's Cron Trigger fires in a matching minute, once per minute", async () => {
    const { name, key } = await agentWith(
      `(behavior "brief" :persistent (cron "30 7 * * 1-5") (goal (input) "brief") (plan (input ctx) (tool "notes.add" :args {:text "brief"})))`,
    );
    const fire = async (scheduledTime: number) => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime, cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    await fire(Date.UTC(2030, 0, 5, 7, 30)); // a Saturday: no match
    await fire(Date.UTC(2030, 0, 7, 7, 31)); // Monday, wrong minute
    expect(await behaviorRuns(name, "brief")).toHaveLength(0);
    await fire(Date.UTC(2030, 0, 7, 7, 30, 0));
    await fire(Date.UTC(2030, 0, 7, 7, 30, 20)); // the same minute again
    const runs = await behaviorRuns(name, "brief");
    expect(runs).toHaveLength(1);
    expect(runs[0].status).toBe("completed");
    expect((await toolCalls(key)).map((c) => c.body)).toEqual([{ text: "brief" }]);
    const [listed] = await schedulesOf(name);
    expect(listed).toMatchObject({ trigger: "cron 30 7 * * 1-5", lastStatus: "completed" });
    expect(new Date(listed.nextRunAt).getUTCHours()).toBe(7);
    expect(new Date(listed.nextRunAt).getUTCMinutes()).toBe(30);
  });

  it("a behavior whose tool always fails retries with backoff up to retry.max, then records the failure", async () => {
    const { name, key } = await agentWith(
      `(behavior "flaky" :passive (on-idle "1s") (retry :max 1) (goal (input) "try") (plan (input ctx) (tool "notes.add" :args {:text "try"})))`,
      { failing: true },
    );
    const [listed] = await untilAlarmed(
      name,
      () => schedulesOf(name),
      (s) => s[0]?.lastStatus === "failed",
      "the behavior to give up",
    );
    expect(listed).toMatchObject({
      failures: 2,
      nextRunAt: null,
      retryAt: null,
      lastError: expect.stringContaining("notes.add"),
    });
    const runs = await behaviorRuns(name, "flaky");
    expect(runs.map((r) => r.status)).toEqual(["failed", "failed"]);
    expect(await toolCalls(key)).toHaveLength(2);
    expect(await behaviorAlarms(name)).toEqual([]);
  });
});

describe("scheduling is idempotent", () => {
  const hourly = `(behavior "hourly" :passive (every "1h") (goal (input) "h") (plan (input ctx) (tool "clock.now")))`;

  it("setting the same script twice keeps one alarm per behavior", async () => {
    const { name, source } = await agentWith(hourly);
    expect(await behaviorAlarms(name)).toHaveLength(1);
    await putScript(name, source);
    await putScript(name, source);
    const alarms = await behaviorAlarms(name);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ type: "interval", intervalSeconds: 3600 });
  });

  it("changing a behavior's interval replaces its alarm instead of adding one", async () => {
    const { name, source } = await agentWith(hourly);
    await putScript(name, source.replace('"1h"', '"2h"'));
    const alarms = await behaviorAlarms(name);
    expect(alarms.map((a) => a.intervalSeconds)).toEqual([7200]);
  });

  it("a restarted agent keeps its alarm, once, and re-arms one that was lost", async () => {
    const { name } = await agentWith(hourly);
    const before = await behaviorAlarms(name);
    await expect(insideAgent(agentObject(name), (_, state) => state.abort())).rejects.toThrow();
    expect((await schedulesOf(name))[0].nextRunAt).toBe(before[0].time * 1000);
    expect(await behaviorAlarms(name)).toEqual(before);

    await insideAgent(agentObject(name), async (instance: any) => {
      for (const s of await instance.listSchedules())
        if (s.callback === "onBehaviorAlarm") await instance.cancelSchedule(s.id);
    });
    await expect(insideAgent(agentObject(name), (_, state) => state.abort())).rejects.toThrow();
    expect((await schedulesOf(name))[0].nextRunAt).toBeGreaterThan(0);
    expect(await behaviorAlarms(name)).toHaveLength(1);
  });
});

describe("pause and resume", () => {
  it("a paused behavior has no alarm and says so; resuming arms it again", async () => {
    const { name } = await agentWith(
      `(behavior "hourly" :passive (every "1h") (goal (input) "h") (plan (input ctx) (tool "clock.now")))`,
    );
    const paused = await api(`/api/agents/${name}/schedules/hourly/pause`, { method: "POST" });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ behavior: "hourly", paused: true, nextRunAt: null });
    expect(await behaviorAlarms(name)).toHaveLength(0);
    const resumed = (await (
      await api(`/api/agents/${name}/schedules/hourly/resume`, { method: "POST" })
    ).json()) as any;
    expect(resumed).toMatchObject({ paused: false, nextRunAt: expect.any(Number) });
    expect(await behaviorAlarms(name)).toHaveLength(1);
  });

  it("a spawned agent's cron behavior fires too, and a deleted agent's cron behaviors leave the index", async () => {
    const boss = uniqueName("boss");
    const child = uniqueName("nightly");
    const put = await putScript(
      boss,
      `(actor "${boss}" (description "Spawns helpers.") (spawn :allowed true :quota 2))`,
    );
    expect(put.status).toBe(201);
    // The registry spawns the child from its script, as the agent.spawn tool asks it to.
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName("default")) as unknown as {
      spawnChild(parent: string, source: string): Promise<{ ok: boolean }>;
    };
    const childScript = `(actor "${child}" (description "Checks in at night.") (talent "work" (behavior "check-in" :persistent (cron "45 2 * * *") (goal (input) "check in") (plan (input ctx) (tool "clock.now")))))`;
    expect(await registry.spawnChild(boss, childScript)).toMatchObject({ ok: true });
    // What the spawner does next: it pushes the child's profile to the child's object.
    const profile = (await (await api(`/api/agents/${child}`)).json()) as Record<string, unknown>;
    await insideAgent(agentObject(child), (instance: any) => instance.configure(profile));
    const fire = async (scheduledTime: number) => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime, cron: "* * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    await fire(Date.UTC(2031, 2, 3, 2, 45));
    const runs = (await runsOf(child)).filter((r) => r.trigger === "behavior:work/check-in");
    expect(runs).toHaveLength(1);
    expect(runs[0].status).toBe("completed");
    const index = env.REGISTRY.get(env.REGISTRY.idFromName("__cron-index")) as unknown as {
      cronBehaviors(): Promise<{ agent: string }[]>;
    };
    expect((await index.cronBehaviors()).some((e) => e.agent === child)).toBe(true);
    expect((await api(`/api/agents/${child}`, { method: "DELETE" })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 100));
    expect((await index.cronBehaviors()).some((e) => e.agent === child)).toBe(false);
  });

  it("modes: a passive behavior waits while the agent is busy and runs once it is idle; a persistent one runs either way", async () => {
    const { name } =
      await agentWith(`(behavior "tidy" :passive (cron "10 4 * * *") (goal (input) "tidy") (plan (input ctx) (tool "clock.now")))
      (behavior "watch" :persistent (cron "10 4 * * *") (goal (input) "watch") (plan (input ctx) (tool "clock.now")))`);
    // Busy: a run with work in flight (written, not yet driven).
    const busyRun = await insideAgent(
      agentObject(name),
      async (instance: any) =>
        instance.features.driver.create({
          agent: name,
          sessionId: instance.features.sessions.resolve().id,
          limits: (await import("../../core/run")).defaultRunLimits,
          origin: { trigger: "message", content: "still working" },
        }).runId,
    );
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.UTC(2031, 4, 6, 4, 10), cron: "* * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect((await behaviorRuns(name, "watch")).map((r) => r.status)).toEqual(["completed"]);
    expect(await behaviorRuns(name, "tidy")).toHaveLength(0);
    expect((await schedulesOf(name)).find((v: any) => v.behavior === "tidy")).toMatchObject({
      lastStatus: "deferred",
      retryAt: expect.any(Number),
    });

    // Idle again: the deferred passive behavior runs when it looks again (its alarm), once.
    await insideAgent(agentObject(name), (_instance: any, state: DurableObjectState) =>
      state.storage.sql.exec("UPDATE runs SET status = 'completed' WHERE id = ?", busyRun),
    );
    await insideAgent(agentObject(name), async (instance: any) => {
      for (const s of (await instance.listSchedules()).filter(
        (s: any) => s.callback === "onBehaviorAlarm" && s.payload.kind === "retry",
      )) {
        await instance.cancelSchedule(s.id);
        await instance.schedule(0, "onBehaviorAlarm", s.payload);
      }
    });
    const runs = await untilAlarmed(
      name,
      () => behaviorRuns(name, "tidy"),
      (r) => r.length === 1 && r[0].status === "completed",
      "the deferred passive run",
    );
    expect(runs).toHaveLength(1);
  });

  it("a paused cron behavior does not run on its minute", async () => {
    const { name } = await agentWith(
      `(behavior "brief" :persistent (cron "15 9 * * *") (goal (input) "b") (plan (input ctx) (tool "clock.now")))`,
    );
    await api(`/api/agents/${name}/schedules/brief/pause`, { method: "POST" });
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.UTC(2030, 5, 1, 9, 15), cron: "* * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await behaviorRuns(name, "brief")).toHaveLength(0);
  });

  it("pausing a behavior the script does not have answers 404", async () => {
    const { name } = await agentWith(
      `(behavior "hourly" :passive (every "1h") (goal (input) "h") (plan (input ctx) (tool "clock.now")))`,
    );
    const res = await api(`/api/agents/${name}/schedules/nope/pause`, { method: "POST" });
    expect(res.status).toBe(404);
    expect((await api(`/api/agents/${uniqueName("ghost")}/schedules`)).status).toBe(404);
  });
});
