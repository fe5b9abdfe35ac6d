import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../durable-objects/agent/agent-do";
import { api, readSse } from "../api/client";
import { evict, wakeByAlarmUntilDone } from "./eviction-kit";
import { eventually, httpTool, scriptedAgent, toolCalls } from "./scripted";

/**
 * Makes the agent's one watchdog alarm due now and fires it (as it would be ≤ 30 s after an
 * eviction): the only thing that wakes the object.
 */
async function fireWatchdogNow(stub: DurableObjectStub<AgentDO>) {
  await runInDurableObject(stub, async (instance: AgentDO) => {
    const watchdog = instance.getSchedules().filter((s) => s.callback === "onRunWatchdog");
    expect(watchdog).toHaveLength(1);
    await instance.cancelSchedule(watchdog[0]!.id);
    await instance.schedule(0, "onRunWatchdog");
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
}

/** A project where `boss` asks `helper` one question; each answers from its own script. */
async function bossAsksHelper(question: string, bossReply: string, helperSteps: unknown[]) {
  const { project, script } = await import("../bus/harness");
  const p = project();
  const bossModel = `boss-${crypto.randomUUID()}`;
  const helperModel = `helper-${crypto.randomUUID()}`;
  await p.agent("helper", { model: { provider: "openai", name: helperModel } });
  await p.agent("boss", { model: { provider: "openai", name: bossModel } });
  await p.connect("boss", ["helper"]);
  await script(bossModel, [{ toolCalls: [{ name: "ask_helper", arguments: { question } }] }, { content: bossReply }]);
  await script(helperModel, helperSteps);
  return Object.assign(p, { helperModel });
}

async function firstRun(agent: string): Promise<{ id: string; status: string }> {
  return eventually(
    async () => ((await (await api(`/api/agents/${agent}/runs`)).json()) as any).runs[0],
    (run: any) => Boolean(run?.id),
    "the run to exist",
  );
}

async function historyOf(agent: string): Promise<{ role: string; content: string }[]> {
  return ((await (await api(`/api/agents/${agent}/messages`)).json()) as any).messages.reverse();
}

describe("an evicted agent carries its runs on, woken only by its alarm", () => {
  it("model call in flight: the call is made again and the run completes; history holds each message once", async () => {
    const agent = await scriptedAgent();
    await agent.script([{ content: "slow answer", delayMs: 1500 }, { content: "Answered after the restart." }]);
    const pending = agent.send("think hard").catch(() => null);
    await eventually(
      () => agent.modelCalls(),
      (calls) => calls.length === 1,
      "the model call",
    );
    const run = await firstRun(agent.name);
    await evict(agent.name);
    await pending;

    expect(await wakeByAlarmUntilDone(agent.name, run.id)).toBe("completed");
    const detail = await agent.run(run.id);
    expect(detail.trace.some((s: any) => s.name === "resumed")).toBe(true);
    expect(await historyOf(agent.name)).toEqual([
      expect.objectContaining({ role: "user", content: "think hard" }),
      expect.objectContaining({ role: "assistant", content: "Answered after the restart." }),
    ]);
  });

  it("while the model is still answering, the request is stored: the history shows it and the run is listed", async () => {
    // The turn writes its run and request as its model request leaves (not before, not after the
    // answer): this is what lets the alarm carry a turn on when the object dies during the call.
    const agent = await scriptedAgent();
    await agent.script([{ content: "Thought it over.", delayMs: 1500 }]);
    const pending = agent.send("take a moment");
    await eventually(
      () => agent.modelCalls(),
      (calls) => calls.length === 1,
      "the model call",
    );

    expect(await historyOf(agent.name)).toEqual([expect.objectContaining({ role: "user", content: "take a moment" })]);
    expect((await firstRun(agent.name)).status).toBe("running");
    expect((await pending).body).toMatchObject({ status: "completed", reply: { content: "Thought it over." } });
  });

  it("evicted after the request was stored and before its context was compiled: the alarm compiles it and the run answers once", async () => {
    const agent = await scriptedAgent();
    await agent.script([{ content: "Answered after the restart." }]);
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    await api(`/api/agents/${agent.name}`);
    // What a turn does up to that point: the watchdog is armed, the run and its request are written.
    const runId = await runInDurableObject(stub, async (instance: AgentDO) => {
      const internals = instance as unknown as {
        armRunWatchdog(): Promise<void>;
        features: {
          driver: { create(input: unknown): { runId: string } };
          sessions: { resolve(id?: string): { id: string } };
        };
      };
      await internals.armRunWatchdog();
      return internals.features.driver.create({
        agent: agent.name,
        sessionId: internals.features.sessions.resolve().id,
        limits: (await import("../../core/run")).defaultRunLimits,
        origin: { trigger: "message", content: "are you there?" },
      }).runId;
    });
    await evict(agent.name);

    expect(await wakeByAlarmUntilDone(agent.name, runId)).toBe("completed");
    expect(await historyOf(agent.name)).toEqual([
      expect.objectContaining({ role: "user", content: "are you there?" }),
      expect.objectContaining({ role: "assistant", content: "Answered after the restart." }),
    ]);
    // The model saw the request once: the stored request is not also history.
    const [call] = await agent.modelCalls();
    expect(call.messages.filter((m: any) => m.role === "user" && m.content === "are you there?")).toHaveLength(1);
  });

  it("a run past its time limit is failed by the watchdog alarm (no alarm of its own per run)", async () => {
    const agent = await scriptedAgent({ limits: { maxRunMs: 1000 } });
    await agent.script([{ content: "far too late", delayMs: 2500 }]);
    const pending = agent.send("take your time").catch(() => null);
    const run = await firstRun(agent.name);
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    expect(
      await runInDurableObject(
        stub,
        (instance: AgentDO) => instance.getSchedules().filter((s) => s.callback === "onRunDeadline").length,
      ),
    ).toBe(0);
    await new Promise((r) => setTimeout(r, 1200));
    await fireWatchdogNow(stub);
    const detail = await agent.run(run.id);
    expect(detail.run.status).toBe("failed");
    expect(detail.run.error).toMatch(/time limit reached/);
    await pending;
  });

  it("tool call in flight: an idempotent tool is called again with the same key; a run streamed to a client finishes for the others", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({
      httpTools: [httpTool("slow.read", key, { query: "ms=1500", idempotent: true })],
    });
    await agent.script([{ toolCalls: [{ name: "slow.read", arguments: { text: "x" } }] }, { content: "Read it." }]);
    // Mid-stream to a client: the stream dies with the instance; the run does not.
    const streaming = api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "read slowly" },
      headers: { accept: "text/event-stream" },
    })
      .then((r) => readSse(r))
      .catch(() => null);
    await eventually(
      () => toolCalls(key),
      (calls) => calls.length === 1,
      "the tool call",
    );
    const run = await firstRun(agent.name);
    await evict(agent.name);
    await streaming;

    expect(await wakeByAlarmUntilDone(agent.name, run.id)).toBe("completed");
    const calls = await toolCalls(key);
    expect(calls.length).toBe(2);
    expect(calls[1].headers["idempotency-key"]).toBe(calls[0].headers["idempotency-key"]);
    const history = await historyOf(agent.name);
    expect(history.map((m) => m.content)).toEqual(["read slowly", "Read it."]);
  });

  it("waiting for approval: nothing is lost or redone, and the decision after the restart runs the tool once", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("mail.send", key, { requiresApproval: true })] });
    await agent.script([{ toolCalls: [{ name: "mail.send", arguments: { text: "hi" } }] }, { content: "Sent." }]);
    const { body } = await agent.send("send it");
    expect(body.status).toBe("waiting_approval");
    await evict(agent.name);

    const approved = await api(`/api/agents/${agent.name}/runs/${body.runId}/approval`, {
      method: "POST",
      json: { decision: "approve" },
    });
    expect(((await approved.json()) as any).status).toBe("completed");
    expect(await toolCalls(key)).toHaveLength(1);
    expect((await historyOf(agent.name)).map((m) => m.content)).toEqual(["send it", "Sent."]);
  });

  it("mid-plan of a deterministic behavior: the plan goes on where it was, and its message is written once", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({
      tools: ["clock.now"],
      httpTools: [httpTool("slow.read", key, { query: "ms=1500", idempotent: true })],
    });
    const script = `(actor "${agent.name}" (description "plans")
      (talent "t" (behavior "b" :active (goal (input) (get input "text"))
        (plan (input ctx) (sequence (tool "slow.read" :args {:text "a"}) (message "system" :content "step two") (tool "clock.now") (message "assistant" :content "Plan done."))))))`;
    const put = await api(`/api/agents/${agent.name}/script`, {
      method: "PUT",
      body: script,
      headers: { "content-type": "text/x-pantheon" },
    });
    expect(put.status).toBe(200);
    const pending = agent.send("go").catch(() => null);
    await eventually(
      () => toolCalls(key),
      (calls) => calls.length === 1,
      "the plan's first tool",
    );
    const run = await firstRun(agent.name);
    await evict(agent.name);
    await pending;

    expect(await wakeByAlarmUntilDone(agent.name, run.id)).toBe("completed");
    expect(await agent.modelCalls()).toHaveLength(0);
    const history = (await historyOf(agent.name)).map((m) => m.content);
    expect(history).toEqual(["go", "step two", "Plan done."]);
    const detail = await agent.run(run.id);
    expect(detail.trace.filter((s: any) => s.name === "tool_call").map((s: any) => s.data.tool)).toEqual([
      "slow.read",
      "clock.now",
    ]);
    // The read-only step was redone after the restart (the trace says so), with the same key.
    expect(detail.trace.find((s: any) => s.name === "resumed").data).toMatchObject({
      status: "waiting_tool",
      redo: ["call_tool"],
    });
    const calls = await toolCalls(key);
    expect(calls).toHaveLength(2);
    expect(calls[1].headers["idempotency-key"]).toBe(calls[0].headers["idempotency-key"]);
  });
});

describe("delegation is exactly-once in effect across evictions", () => {
  it("the asked agent evicted mid-answer: its watchdog alarm carries the run on and sends the answer once; the asker completes", async () => {
    const p = await bossAsksHelper("what is 2+2?", "Helper says 4.", [
      { content: "slow", delayMs: 1500 },
      { content: "4" },
    ]);

    const asked = await p.chat("boss", "ask the helper");
    expect(asked.status).toBe("waiting_agent");
    const helperRun = await p.until(
      async () => ((await p.json(`/api/agents/helper/runs`)) as any).runs[0],
      "the helper's run",
    );
    // Evicted while its model call is in flight (the double holds it 1.5 s): the call is made again.
    const doubleUrl = (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;
    await p.until(
      async () =>
        ((await (await fetch(`${doubleUrl}/__calls/${p.helperModel}`)).json()) as unknown[]).length > 0 ? true : null,
      "the helper's model call in flight",
    );
    const name = `${p.name}.helper`;
    await expect(
      runInDurableObject(env.AGENT_DO.get(env.AGENT_DO.idFromName(name)), (_instance, state) =>
        state.abort("test: evicted"),
      ),
    ).rejects.toThrow();

    // The watchdog is due (as it is ≤ 30 s after an eviction); its alarm is the only thing that wakes the helper.
    await fireWatchdogNow(env.AGENT_DO.get(env.AGENT_DO.idFromName(name)));

    const boss = await p.settled("boss", asked.runId);
    expect(boss.run.status).toBe("completed");
    expect(p.replyOf(boss)).toBe("Helper says 4.");
    const answers = boss.trace.filter((t) => t.name === "agent_response");
    expect(answers).toHaveLength(1);
    expect(answers[0]!.data.output).toBe("4");
    const helperHistory = (
      (await p.json(`/api/agents/helper/messages?session=${helperRun.sessionId}`)) as any
    ).messages.map((m: any) => m.content);
    expect(helperHistory.filter((c: string) => c === "what is 2+2?")).toHaveLength(1);
  });

  it("an answer written but not yet taken by the queue when the agent was evicted is sent when it wakes", async () => {
    const { project } = await import("../bus/harness");
    const p = project();
    await p.agent("solo");
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`${p.name}.solo`));
    // As the agent leaves it when evicted right after the transaction that queued an answer.
    const queued = {
      id: `${crypto.randomUUID()}:response`,
      project: p.name,
      conversationId: crypto.randomUUID(),
      from: "solo",
      to: "nobody",
      type: "response",
      replyTo: { runId: "r", callId: "c" },
      depth: 1,
      createdAt: Date.now(),
      deadlineAt: Date.now() + 60_000,
      payload: { answer: "late" },
    };
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO bus_send_queue (id, message, attempts, created_at) VALUES (?, ?, 0, ?)",
        queued.id,
        JSON.stringify(queued),
        Date.now(),
      );
    });
    await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evicted"))).rejects.toThrow();
    // Any wake-up (here a request) sends what is queued; the queue row goes once the queue took it.
    await p.json(`/api/agents/solo`);
    const left = await p.until(async () => {
      const fresh = env.AGENT_DO.get(env.AGENT_DO.idFromName(`${p.name}.solo`));
      const rows = await runInDurableObject(
        fresh,
        (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM bus_send_queue").one().n,
      );
      return rows === 0 ? "empty" : null;
    }, "the send queue to drain");
    expect(left).toBe("empty");
  });

  it("a run that ended before its answer was queued (evicted between the two) answers when its alarm wakes it", async () => {
    const p = await bossAsksHelper("what is 6*7?", "Helper says 42.", [{ content: "42", delayMs: 800 }]);
    const helper = () => env.AGENT_DO.get(env.AGENT_DO.idFromName(`${p.name}.helper`));

    const asked = await p.chat("boss", "ask the helper");
    expect(asked.status).toBe("waiting_agent");
    const helperRun = await p.until(
      async () => ((await p.json(`/api/agents/helper/runs`)) as any).runs[0],
      "the helper's run",
    );
    // The state an eviction leaves right after the run's end was written and before its answer was
    // queued: the run is over, its request still marked applied, nothing in the send queue.
    await runInDurableObject(helper(), async (instance: AgentDO, _state) => {
      (
        instance as unknown as { features: { bus: { answer(runId: string, status: string): void } } }
      ).features.bus.answer = () => undefined;
    });
    await p.until(
      async () => ((await p.json(`/api/agents/helper/runs/${helperRun.id}`)) as any).run.status === "completed",
      "the helper's run to end",
    );
    expect(
      await runInDurableObject(
        helper(),
        (_i, state) =>
          state.storage.sql
            .exec<{ status: string }>("SELECT status FROM bus_inbox WHERE run_id = ?", helperRun.id)
            .one().status,
      ),
    ).toBe("applied");
    await expect(runInDurableObject(helper(), (_instance, state) => state.abort("test: evicted"))).rejects.toThrow();

    // Only the watchdog alarm (armed when the request arrived) wakes the helper.
    await fireWatchdogNow(helper());

    const boss = await p.settled("boss", asked.runId);
    expect(boss.run.status).toBe("completed");
    const answers = boss.trace.filter((t) => t.name === "agent_response");
    expect(answers).toHaveLength(1);
    expect(answers[0]!.data.output).toBe("42");
  });
});
