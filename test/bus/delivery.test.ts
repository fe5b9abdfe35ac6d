import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/index";
import { makeBusConsumers } from "../../workers/queue";
import type { AgentDO } from "../../durable-objects/agent/agent-do";
import { project, script } from "./harness";

async function consume(queue: string, messages: { id: string; body: unknown; attempts?: number }[]) {
  const batch = createMessageBatch(
    queue,
    messages.map((m) => ({ id: m.id, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

const agentObject = (projectName: string, agent: string) =>
  env.AGENT_DO.get(env.AGENT_DO.idFromName(`${projectName}.${agent}`)) as DurableObjectStub<AgentDO>;

/** main asks `slow`, whose run then waits for a person's approval: the question is in flight and stays there. */
async function questionInFlight() {
  const p = project();
  await p.agent("slow", { runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
  await p.agent("main");
  await p.connect("main", ["slow"]);
  const started = await p.chat("main", "/ask slow /tool clock.now {}");
  // The bus log is written after the messages, not before them: poll until it shows the hop.
  const chain = await p.until(async () => {
    const res = await p.api(`/api/conversations/${started.runId}`);
    const body = res.ok ? await res.json<any>() : null;
    return body?.hops[0]?.runStatus === "waiting_approval" ? body : null;
  }, "slow to wait for approval");
  const hop = chain.hops[0];
  const request = {
    id: hop.messageId,
    conversationId: started.runId,
    from: "main",
    to: "slow",
    project: p.name,
    type: "request",
    payload: { question: hop.question },
    depth: 1,
    replyTo: { runId: hop.askerRunId, callId: hop.callId },
    deadlineAt: Date.now() + 60_000,
    createdAt: hop.createdAt,
  };
  return { p, started, hop, request };
}

describe("bus delivery", () => {
  it("a message delivered twice starts one run", async () => {
    const p = project();
    await p.agent("b");
    await p.agent("a");
    await p.connect("a", ["b"]);
    const body = {
      id: crypto.randomUUID(),
      conversationId: `conv-${crypto.randomUUID()}`,
      from: "a",
      to: "b",
      project: p.name,
      type: "request",
      payload: { question: "hello twice" },
      depth: 1,
      replyTo: { runId: "run-a", callId: "call-a" },
      deadlineAt: Date.now() + 60_000,
      createdAt: Date.now(),
    };
    const first = await consume("pantheon-bus", [{ id: "m1", body }]);
    const second = await consume("pantheon-bus", [{ id: "m2", body }]);
    expect(first.explicitAcks).toEqual(["m1"]);
    expect(second.explicitAcks).toEqual(["m2"]);

    const runs = await p.until(async () => {
      const listed = (await p.json(`/api/agents/b/runs`)).runs;
      return listed.length > 0 && listed.every((r: any) => r.status === "completed") ? listed : null;
    }, "b's run");
    expect(runs).toHaveLength(1);
    expect(runs[0].trigger).toBe("agent:a");
  });

  it("a consumer whose delivery fails asks for a retry with backoff", async () => {
    const consumers = makeBusConsumers({
      deliver: async () => {
        throw new Error("agent unreachable");
      },
      record: async () => {},
      send: async () => {},
      now: () => Date.now(),
    });
    const body = {
      id: "x",
      conversationId: "c",
      from: "a",
      to: "b",
      project: "p",
      type: "request",
      payload: { question: "q" },
      depth: 1,
      replyTo: { runId: "r", callId: "k" },
      deadlineAt: 1,
      createdAt: 0,
    };
    const batch = createMessageBatch("pantheon-bus", [
      { id: "first", timestamp: new Date(), attempts: 1, body },
      { id: "third", timestamp: new Date(), attempts: 3, body },
    ]);
    const ctx = createExecutionContext();
    await consumers.bus(batch);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["first", "third"]);

    // The test batch does not keep retry options; a hand-made message shows the backoff asked for.
    const asked: unknown[] = [];
    const message = {
      id: "fifth",
      timestamp: new Date(),
      attempts: 5,
      body,
      ack: () => asked.push("ack"),
      retry: (options: unknown) => asked.push(options),
    };
    await consumers.bus({
      queue: "pantheon-bus",
      messages: [message],
      ackAll: () => {},
      retryAll: () => {},
    } as unknown as MessageBatch<unknown>);
    expect(asked).toEqual([{ delaySeconds: 16 }]);
  });

  it("an answer goes to its asker without a registry call on the way; an asker that is gone is logged and the answer acknowledged, not retried", async () => {
    const recorded: { state: string; note?: string }[] = [];
    const consumers = makeBusConsumers({
      deliver: async () => ({ ok: false, code: "not_found", message: "agent 'a' does not exist" }) as never,
      record: async (_project, entries) =>
        void recorded.push(...entries.map((e) => ({ state: e.state, ...(e.note ? { note: e.note } : {}) }))),
      send: async () => {},
      now: () => Date.now(),
    });
    const answer = {
      id: "x:reply",
      conversationId: "c",
      from: "b",
      to: "a",
      project: "p",
      type: "response",
      payload: { answer: "42" },
      depth: 1,
      replyTo: { runId: "r", callId: "k" },
      deadlineAt: Date.now() + 60_000,
      createdAt: 0,
    };
    const batch = createMessageBatch("pantheon-bus", [{ id: "m1", timestamp: new Date(), attempts: 1, body: answer }]);
    const ctx = createExecutionContext();
    await consumers.bus(batch);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
    expect(recorded).toEqual([{ state: "ignored", note: "the asker is gone: agent 'a' does not exist" }]);
  });

  it("a dead letter is recorded and the asker gets an error instead of waiting forever", async () => {
    const { p, started, request } = await questionInFlight();
    const result = await consume("pantheon-bus-dlq", [{ id: "dead-1", body: request, attempts: 4 }]);
    expect(result.explicitAcks).toEqual(["dead-1"]);

    const run = await p.settled("main", started.runId);
    expect(run.run.status).toBe("completed");
    expect(p.replyOf(run)).toContain("could not answer (dead_letter): the question to 'slow' could not be delivered");
    const chain = await p.json(`/api/conversations/${started.runId}`);
    expect(chain.hops[0].state).toBe("dead");
    const bus = await p.json("/api/bus");
    expect(bus.agents.find((a: any) => a.agent === "slow")).toMatchObject({ dead: 1 });
  });

  it("when the asked agent's run fails, the asker gets the failure as its tool result", async () => {
    const p = project();
    const model = `bus-broken-${crypto.randomUUID()}`;
    await script(model, [{ status: 400, error: "the model refuses" }]);
    await p.agent("broken", { model: { provider: "openai", name: model } });
    await p.agent("main");
    await p.connect("main", ["broken"]);
    const started = await p.chat("main", "/ask broken please help");
    const run = await p.settled("main", started.runId);
    expect(run.run.status).toBe("completed");
    expect(p.replyOf(run)).toContain("agent 'broken' could not answer (run_failed)");
    const chain = await p.chain(started.runId, 1);
    expect(chain.hops[0]).toMatchObject({ state: "answered", runStatus: "failed" });
  });

  it("one deadline alarm covers every waiting request: the one past its deadline times out, and the alarm moves to the next", async () => {
    const { p, started: first } = await questionInFlight();
    const second = await p.chat("main", "/ask slow /tool clock.now {}");
    expect(second.status).toBe("waiting_agent");
    const main = agentObject(p.name, "main");
    await runInDurableObject(main, async (instance, state) => {
      const armed = instance.getSchedules().filter((s) => s.callback === "onBusDeadline");
      expect(armed).toHaveLength(1);
      // The first request's deadline has passed; the second's is still two minutes out.
      state.storage.sql.exec("UPDATE bus_outbox SET deadline_at = ? WHERE run_id = ?", Date.now() - 1, first.runId);
      await instance.cancelSchedule(armed[0]!.id);
      await instance.schedule(0, "onBusDeadline", armed[0]!.payload as never);
    });
    await runDurableObjectAlarm(main);

    const timedOut = await p.settled("main", first.runId);
    expect(p.replyOf(timedOut)).toContain("agent 'slow' did not answer within");
    const waiting = await p.json(`/api/agents/main/runs/${second.runId}`);
    expect(waiting.run.status).toBe("waiting_agent");
    await runInDurableObject(main, async (instance) => {
      const armed = instance.getSchedules().filter((s) => s.callback === "onBusDeadline");
      expect(armed).toHaveLength(1);
      expect(armed[0]!.time * 1000).toBeGreaterThan(Date.now() + 60_000);
    });
  });

  it("an asker whose deadline passes gets a timeout error, and the late answer is ignored", async () => {
    const { p, started, hop } = await questionInFlight();
    const main = agentObject(p.name, "main");
    await runInDurableObject(main, async (instance) => {
      const armed = instance.getSchedules().filter((s) => s.callback === "onBusDeadline");
      expect(armed).toHaveLength(1);
      // The deadline is two minutes out: bring it forward to now instead of waiting.
      await instance.cancelSchedule(armed[0]!.id);
      await instance.schedule(0, "onBusDeadline", armed[0]!.payload as never);
    });
    await runDurableObjectAlarm(main);

    const run = await p.settled("main", started.runId);
    expect(p.replyOf(run)).toContain("agent 'slow' did not answer within 120 s");
    expect(run.trace.some((t) => t.name === "bus_timeout")).toBe(true);

    await p.json(`/api/agents/slow/runs/${hop.runId}/approval`, { method: "POST", json: { decision: "approve" } });
    await p.settled("slow", hop.runId);
    const chain = await p.until(async () => {
      const body = await p.json(`/api/conversations/${started.runId}`);
      return body.hops[0].reply?.state === "ignored" ? body : null;
    }, "the late answer to be ignored");
    expect(chain.hops[0].state).toBe("timeout");
  });
});
