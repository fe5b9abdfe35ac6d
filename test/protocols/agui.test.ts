// `POST /agui/agents/:name` driven by @ag-ui/client's HttpAgent (the AG-UI reference client, which
// verifies the event order as it applies the stream) through the real worker (SELF).
import {
  HttpAgent,
  runHttpRequest,
  transformHttpEventStream,
  type AgentSubscriber,
  type BaseEvent,
  type Interrupt,
  type RunAgentParameters,
} from "@ag-ui/client";
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent, type ErrorBody } from "../api/client";
import { scriptedAgent } from "../runs/scripted";

const urlOf = (agent: string) => `https://pantheon.test/agui/agents/${agent}`;

function aguiAgent(agent: string, options: { token?: string; project?: string } = {}) {
  return new HttpAgent({
    url: urlOf(agent),
    headers: {
      authorization: `Bearer ${options.token ?? adminToken}`,
      ...(options.project ? { "x-pantheon-project": options.project } : {}),
    },
    fetch: (url, init) => SELF.fetch(url, init),
  });
}

/** Runs one turn (a new user message, or a resume) and records what the client applied. */
async function turn(client: HttpAgent, content: string | null, parameters?: RunAgentParameters) {
  if (content !== null) client.addMessage({ id: crypto.randomUUID(), role: "user", content });
  const events: BaseEvent[] = [];
  let interrupts: Interrupt[] = [];
  let failure: Error | null = null;
  const subscriber: AgentSubscriber = {
    onEvent: ({ event }) => void events.push(event),
    onRunFinishedEvent: (params) => {
      if (params.outcome === "interrupt") interrupts = params.interrupts;
    },
  };
  const result = await client.runAgent(parameters, subscriber).catch((error: unknown) => {
    failure = error as Error;
    return { result: undefined, newMessages: [] };
  });
  return { events, types: events.map((e) => String(e.type)), interrupts, result, failure: failure as Error | null };
}

const of = (events: BaseEvent[], type: string) =>
  events.filter((e) => e.type === type) as (BaseEvent & Record<string, any>)[];
const textOf = (events: BaseEvent[]) =>
  of(events, "TEXT_MESSAGE_CONTENT")
    .map((e) => e.delta)
    .join("");

async function tokenOf(scope: "chat" | "approve" | "admin", project = "default") {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name: `agui ${scope}`, scope },
    headers: { "x-pantheon-project": project },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function runsOf(agent: string) {
  return (
    (await (await api(`/api/agents/${agent}/runs`)).json()) as {
      runs: { id: string; status: string; sessionId: string }[];
    }
  ).runs;
}

describe("AG-UI at /agui/agents/:name", () => {
  it("runs a plain turn: run started, the agent's live state, the reply streamed as text, run finished", async () => {
    const agent = await createAgent();
    const client = aguiAgent(agent.name);
    const { types, events, failure, result } = await turn(client, "What is the launch code word?");
    expect(failure).toBeNull();
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types).toContain("TEXT_MESSAGE_START");
    expect(of(events, "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(1);
    expect(textOf(events)).toBe("From the system prompt: The launch code word is pineapple.");
    const snapshots = of(events, "STATE_SNAPSHOT").map((e) => e.snapshot);
    expect(snapshots[0]).toMatchObject({ agent: agent.name, status: "running", typing: true });
    expect(snapshots.at(-1)).toMatchObject({ status: "idle", typing: false });
    // The client's own conversation now holds the reply, and the agent's history the turn.
    expect(client.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: "From the system prompt: The launch code word is pineapple.",
    });
    expect(result.newMessages).toHaveLength(1);
    const [run] = await runsOf(agent.name);
    expect(run?.status).toBe("completed");
    expect(snapshots.at(-1)?.runId).toBe(run?.id);
  });

  it("keeps one Pantheon session per AG-UI thread", async () => {
    const agent = await createAgent();
    const client = aguiAgent(agent.name);
    await turn(client, "first");
    await turn(client, "second");
    const other = aguiAgent(agent.name);
    await turn(other, "elsewhere");
    const runs = await runsOf(agent.name);
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((r) => r.sessionId)).size).toBe(2);
    const sessions = (
      (await (await api(`/api/agents/${agent.name}/sessions`)).json()) as { sessions: { title: string }[] }
    ).sessions;
    expect(sessions.map((s) => s.title)).toContain(`agui:${client.threadId}`);
  });

  it("streams a tool call (start, arguments, end) and its result, then the reply that used it", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const { events, types, failure } = await turn(aguiAgent(agent.name), "/tool clock.now {}");
    expect(failure).toBeNull();
    const start = of(events, "TOOL_CALL_START")[0]!;
    expect(start.toolCallName).toBe("clock.now");
    expect(of(events, "TOOL_CALL_ARGS")[0]).toMatchObject({ toolCallId: start.toolCallId, delta: "{}" });
    const result = of(events, "TOOL_CALL_RESULT")[0]!;
    expect(result.toolCallId).toBe(start.toolCallId);
    const iso = (JSON.parse(result.content) as { iso: string }).iso;
    expect(types.indexOf("TOOL_CALL_END")).toBeLessThan(types.indexOf("TOOL_CALL_RESULT"));
    expect(types.indexOf("TOOL_CALL_RESULT")).toBeLessThan(types.indexOf("TEXT_MESSAGE_START"));
    expect(textOf(events)).toContain(iso);
    expect(of(events, "STATE_SNAPSHOT").map((e) => e.snapshot.status)).toContain("waiting_tool");
  });

  it("shows a call a gate refused as a tool call whose result names the gate, and the tool never runs", async () => {
    const agent = await createAgent({
      runtime: { tools: ["clock.now"], gates: [{ name: "no-passwords", kind: "deny-pattern", pattern: "password" }] },
    });
    const { events, failure } = await turn(aguiAgent(agent.name), '/tool clock.now {"note": "my password"}');
    expect(failure).toBeNull();
    const results = of(events, "TOOL_CALL_RESULT");
    expect(results).toHaveLength(1);
    expect(results[0]!.content).toMatch(/^refused by gate '[a-z-]+': /);
    expect(of(events, "TOOL_CALL_START")[0]).toMatchObject({
      toolCallId: results[0]!.toolCallId,
      toolCallName: "clock.now",
    });
    expect(textOf(events)).not.toContain("epochMs");
  });

  it("pauses on an approval as an interrupt, and a resume carrying the decision runs the call and finishes the turn", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const client = aguiAgent(agent.name, { token: await tokenOf("approve") });
    const first = await turn(client, "/tool clock.now {}");
    expect(first.failure).toBeNull();
    expect(first.types.at(-1)).toBe("RUN_FINISHED");
    expect(first.interrupts).toHaveLength(1);
    const interrupt = first.interrupts[0]!;
    expect(interrupt).toMatchObject({ reason: "tool_approval", metadata: { tool: "clock.now", arguments: {} } });
    // The call the interrupt concerns is in the stream, without a result: it has not run.
    expect(of(first.events, "TOOL_CALL_START")[0]?.toolCallId).toBe(interrupt.toolCallId);
    expect(of(first.events, "TOOL_CALL_RESULT")).toHaveLength(0);
    expect(client.pendingInterrupts).toHaveLength(1);
    const [waiting] = await runsOf(agent.name);
    expect(waiting?.status).toBe("waiting_approval");

    const second = await turn(client, null, {
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
    });
    expect(second.failure).toBeNull();
    expect(of(second.events, "TOOL_CALL_START")).toHaveLength(0);
    expect(of(second.events, "TOOL_CALL_RESULT")[0]?.toolCallId).toBe(interrupt.toolCallId);
    expect(textOf(second.events)).toContain("The tool clock.now returned:");
    expect(second.types.at(-1)).toBe("RUN_FINISHED");
    expect(client.pendingInterrupts).toHaveLength(0);
    const [done] = await runsOf(agent.name);
    expect(done).toMatchObject({ id: waiting?.id, status: "completed" });
    const trace = (
      (await (await api(`/api/agents/${agent.name}/runs/${waiting?.id}`)).json()) as {
        trace: { name: string; data: any }[];
      }
    ).trace;
    expect(trace.find((s) => s.name === "approval")?.data).toMatchObject({ approved: true, by: "token:agui approve" });
  });

  it("gives an interrupt the time a person has to decide, when the agent limits the wait", async () => {
    const agent = await createAgent({
      runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"], limits: { maxApprovalWaitMs: 3_600_000 } },
    });
    const { interrupts } = await turn(aguiAgent(agent.name), "/tool clock.now {}");
    const [run] = await runsOf(agent.name);
    const view = (await (await api(`/api/agents/${agent.name}/runs/${run?.id}`)).json()) as {
      run: { decideBy: number };
    };
    expect(interrupts[0]?.expiresAt).toBe(new Date(view.run.decideBy).toISOString());
    expect(Date.parse(interrupts[0]!.expiresAt!)).toBeGreaterThan(Date.now());
  });

  it("a resume that cancels the interrupt refuses the call: it never runs", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const client = aguiAgent(agent.name);
    const first = await turn(client, "/tool clock.now {}");
    const second = await turn(client, null, {
      resume: [{ interruptId: first.interrupts[0]!.id, status: "cancelled" }],
    });
    expect(second.failure).toBeNull();
    expect(
      of(second.events, "TOOL_CALL_RESULT")
        .map((e) => e.content)
        .join(""),
    ).not.toContain("epochMs");
    const [run] = await runsOf(agent.name);
    expect(["completed", "failed"]).toContain(run?.status);
    const trace = (
      (await (await api(`/api/agents/${agent.name}/runs/${run?.id}`)).json()) as {
        trace: { name: string; data: any }[];
      }
    ).trace;
    expect(trace.find((s) => s.name === "approval")?.data).toMatchObject({ approved: false });
    expect(trace.some((s) => s.name === "tool_result")).toBe(false);
  });

  it("finishes a turn that asks another agent with the wait as its result; the answer lands in the thread's session", async () => {
    // The asked agent waits for a person, so the asker is still waiting when its turn's stream ends
    // (a delegation answered at once could finish first: it goes straight to the other object).
    const helper = await createAgent({
      description: "Answers questions.",
      runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] },
    });
    const agent = await createAgent();
    expect(
      (await api(`/api/agents/${agent.name}/connections`, { method: "PUT", json: { connections: [helper.name] } }))
        .status,
    ).toBe(200);
    const { events, types, failure } = await turn(aguiAgent(agent.name), `/ask ${helper.name} /tool clock.now {}`);
    expect(failure).toBeNull();
    expect(types.at(-1)).toBe("RUN_FINISHED");
    const finished = of(events, "RUN_FINISHED")[0]!;
    expect(finished.result).toMatchObject({ status: "waiting_agent" });
    const runId = finished.result.runId as string;
    let asked: { id: string; status: string } | undefined;
    for (let i = 0; i < 300 && !asked; i++) {
      asked = (await runsOf(helper.name)).find((r) => r.status === "waiting_approval");
      if (!asked) await new Promise((r) => setTimeout(r, 20));
    }
    expect(
      (
        await api(`/api/agents/${helper.name}/runs/${asked!.id}/approval`, {
          method: "POST",
          json: { decision: "approve" },
        })
      ).status,
    ).toBe(200);
    let status = "";
    for (let i = 0; i < 300 && status !== "completed"; i++) {
      status = ((await (await api(`/api/agents/${agent.name}/runs/${runId}`)).json()) as { run: { status: string } })
        .run.status;
      if (status !== "completed") await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe("completed");
  });

  it("reports a failed run as RUN_ERROR with the reason", async () => {
    const agent = await scriptedAgent();
    await agent.script([{ status: 400, error: "model 'x' does not support tools" }]);
    const { types, events, failure } = await turn(aguiAgent(agent.name), "hi");
    expect(types.at(-1)).toBe("RUN_ERROR");
    expect(of(events, "RUN_ERROR")[0]).toMatchObject({ code: "run_failed" });
    expect(of(events, "RUN_ERROR")[0]?.message).toContain("does not support tools");
    expect(failure).toBeNull();
    expect((await runsOf(agent.name))[0]?.status).toBe("failed");
  });

  it("lets a chat token talk but not answer an approval interrupt (403 before any stream, the run still waits)", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const client = aguiAgent(agent.name, { token: await tokenOf("chat") });
    const first = await turn(client, "/tool clock.now {}");
    expect(first.interrupts).toHaveLength(1);
    const res = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      token: await tokenOf("chat"),
      headers: { accept: "text/event-stream" },
      json: {
        threadId: client.threadId,
        runId: "r2",
        messages: [],
        resume: [{ interruptId: first.interrupts[0]!.id, status: "resolved", payload: { approved: true } }],
      },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).error.message).toBe(
      "this needs a token with the 'approve' scope; this token has 'chat'",
    );
    expect((await runsOf(agent.name))[0]?.status).toBe("waiting_approval");
  });

  it("answers 4xx JSON naming the field for a body that is not a RunAgentInput, an unknown interrupt, or an unknown agent", async () => {
    const agent = await createAgent();
    const missing = await api(`/agui/agents/${agent.name}`, { method: "POST", json: { runId: "r1", messages: [] } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual(["threadId"]);

    const noUser = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      json: { threadId: "t", runId: "r1", messages: [{ id: "1", role: "assistant", content: "hi" }] },
    });
    expect(noUser.status).toBe(400);
    expect(((await noUser.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual(["messages"]);

    const forged = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      json: {
        threadId: "t",
        runId: "r1",
        messages: [],
        resume: [{ interruptId: "something-else", status: "resolved", payload: { approved: true } }],
      },
    });
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual(["resume", 0, "interruptId"]);

    const stale = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      json: {
        threadId: "t",
        runId: "r1",
        messages: [],
        resume: [
          { interruptId: `approval:${crypto.randomUUID()}:call_1`, status: "resolved", payload: { approved: true } },
        ],
      },
    });
    expect(stale.status).toBe(404);

    const nobody = await api("/agui/agents/nobody-here", {
      method: "POST",
      json: { threadId: "t", runId: "r1", messages: [{ id: "1", role: "user", content: "hi" }] },
    });
    expect(nobody.status).toBe(404);
    expect(((await nobody.json()) as ErrorBody).error.code).toBe("not_found");
  });

  it("takes a long conversation (the client resends all of it each turn) up to 8 MiB (images ride inline), and refuses a bigger body with 413", async () => {
    const agent = await createAgent();
    const history = Array.from({ length: 40 }, (_, i) => ({
      id: `h${i}`,
      role: i % 2 ? "assistant" : "user",
      content: "x".repeat(4000),
    }));
    const long = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      json: {
        threadId: "long",
        runId: "r1",
        messages: [...history, { id: "q", role: "user", content: "What is the launch code word?" }],
      },
    });
    expect(long.status).toBe(200);
    expect(await long.text()).toContain("pineapple");
    const huge = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      json: {
        threadId: "huge",
        runId: "r2",
        messages: [{ id: "q", role: "user", content: "x".repeat(8 * 1024 * 1024) }],
      },
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as ErrorBody).error.code).toBe("payload_too_large");
  });

  it("speaks AG-UI's protobuf framing to a client that asks for it, with the same events", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const request = () =>
      api(`/agui/agents/${agent.name}`, {
        method: "POST",
        headers: { accept: "application/vnd.ag-ui.event+proto" },
        json: { threadId: "proto", runId: "r1", messages: [{ id: "q", role: "user", content: "/tool clock.now {}" }] },
      });
    expect((await request()).headers.get("content-type")).toBe("application/vnd.ag-ui.event+proto");
    // The client's own decoder (the one HttpAgent uses for this content type).
    const events = await new Promise<BaseEvent[]>((resolve, reject) => {
      const seen: BaseEvent[] = [];
      transformHttpEventStream(runHttpRequest(request)).subscribe({
        next: (e) => seen.push(e),
        error: reject,
        complete: () => resolve(seen),
      });
    });
    const types = events.map((e) => String(e.type));
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.filter((t) => t.startsWith("TOOL_CALL"))).toEqual([
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
    ]);
    expect(of(events, "STATE_SNAPSHOT").at(-1)?.snapshot).toMatchObject({
      agent: agent.name,
      status: "waiting_approval",
    });
    expect(events.at(-1)).toMatchObject({ outcome: { type: "interrupt", interrupts: [{ reason: "tool_approval" }] } });
  });

  it("keeps projects apart: another project's token is refused, and its admin does not see the agent", async () => {
    const agent = await createAgent();
    const body = { threadId: "t", runId: "r1", messages: [{ id: "1", role: "user", content: "hi" }] };
    const foreign = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      token: await tokenOf("admin", "agui-elsewhere"),
      json: body,
    });
    expect(foreign.status).toBe(401);
    const elsewhere = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      headers: { "x-pantheon-project": "agui-elsewhere" },
      json: body,
    });
    expect(elsewhere.status).toBe(404);
    const none = await api(`/agui/agents/${agent.name}`, { method: "POST", token: null, json: body });
    expect(none.status).toBe(401);
    expect(await runsOf(agent.name)).toHaveLength(0);
  });

  it("serves a client that reads slowly: the run finishes without waiting for it, and every event arrives in order", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const res = await api(`/agui/agents/${agent.name}`, {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: {
        threadId: crypto.randomUUID(),
        runId: "slow-run",
        messages: [{ id: "1", role: "user", content: "/tool clock.now {}" }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? "";
    expect(text).toContain('"type":"RUN_STARTED"');
    // The client stops reading; the agent's run goes on to the end regardless.
    let runs = await runsOf(agent.name);
    for (let i = 0; i < 200 && runs[0]?.status !== "completed"; i++) {
      await new Promise((r) => setTimeout(r, 10));
      runs = await runsOf(agent.name);
    }
    expect(runs[0]?.status).toBe("completed");
    // Then it reads one chunk at a time, pausing between reads.
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const types = text
      .split("\n\n")
      .filter((f) => f.startsWith("data: "))
      .map((f) => (JSON.parse(f.slice(6)) as { type: string }).type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.filter((t) => t === "TOOL_CALL_RESULT")).toHaveLength(1);
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types.indexOf("TOOL_CALL_START")).toBeLessThan(types.indexOf("TEXT_MESSAGE_START"));
  });
});
