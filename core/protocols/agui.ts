// AG-UI (the Agent–User Interaction protocol, @ag-ui/core 1.0) for a Pantheon agent: the pure half.
// A run's events (the agent's own stream: run, token, tool_call, gate, tool_result, status, done,
// error) become AG-UI events; a paused run's pending approvals become AG-UI interrupts, and the
// resume entries that answer them become approval decisions. The HTTP shell is workers/doors/agui/.
import { EventType, type BaseEvent, type Interrupt, type ResumeEntry } from "@ag-ui/core";
import type { StreamedRunEvent } from "./run-events";

/** A tool call that waits for a person (the run's `pending` list). */
export interface PendingCall {
  callId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** The agent's live state as STATE_SNAPSHOT carries it (what the PWA's socket shows). */
export interface AguiAgentState {
  agent: string;
  status: string;
  typing: boolean;
  /** The Pantheon run and session behind the AG-UI run and thread. */
  runId: string | null;
  sessionId: string | null;
}

/** What the answer to an approval interrupt looks like (its `responseSchema`). */
export const approvalResponseSchema = {
  type: "object",
  properties: {
    approved: { type: "boolean", description: "true runs the tool call, false refuses it" },
    reason: { type: "string", maxLength: 500 },
  },
  required: ["approved"],
  additionalProperties: false,
} as const;

const interruptPrefix = "approval:";

/** The interrupt id of a pending call: it names the Pantheon run and call, so a resume needs no lookup table. */
export const approvalInterruptId = (runId: string, callId: string) => `${interruptPrefix}${runId}:${callId}`;

/** The run and call an approval interrupt id names, or null for an id this adapter never gave out. */
export function parseApprovalInterruptId(id: string): { runId: string; callId: string } | null {
  if (!id.startsWith(interruptPrefix)) return null;
  const rest = id.slice(interruptPrefix.length);
  const colon = rest.indexOf(":");
  if (colon <= 0 || colon === rest.length - 1) return null;
  return { runId: rest.slice(0, colon), callId: rest.slice(colon + 1) };
}

/** A resume that cannot be acted on: the field and what is wrong with it. */
export interface ResumeProblem {
  path: (string | number)[];
  message: string;
}

/**
 * The approval decisions a RunAgentInput's `resume` carries: `resolved` with `{ approved, reason? }`
 * decides, `cancelled` refuses. Every entry must answer an approval interrupt of the same run.
 * @example
 * decisionsOf([{ interruptId: "approval:r1:c1", status: "resolved", payload: { approved: true } }])
 * // { ok: true, runId: "r1", decisions: [{ callId: "c1", approved: true }] }
 */
export function decisionsOf(
  resume: ResumeEntry[],
):
  | { ok: true; runId: string; decisions: { callId: string; approved: boolean; reason?: string }[] }
  | { ok: false; problem: ResumeProblem } {
  let runId: string | undefined;
  const decisions: { callId: string; approved: boolean; reason?: string }[] = [];
  for (const [index, entry] of resume.entries()) {
    const named = parseApprovalInterruptId(entry.interruptId);
    if (!named)
      return {
        ok: false,
        problem: {
          path: ["resume", index, "interruptId"],
          message: "not an interrupt of this agent: answer the ids of the last RUN_FINISHED's interrupts",
        },
      };
    if (runId !== undefined && named.runId !== runId)
      return {
        ok: false,
        problem: {
          path: ["resume", index, "interruptId"],
          message: "every resume entry must answer an interrupt of the same run",
        },
      };
    runId = named.runId;
    if (entry.status === "cancelled") {
      decisions.push({ callId: named.callId, approved: false, reason: "cancelled by the client" });
      continue;
    }
    const payload = entry.payload as { approved?: unknown; reason?: unknown } | null | undefined;
    if (typeof payload !== "object" || payload === null || typeof payload.approved !== "boolean") {
      return {
        ok: false,
        problem: {
          path: ["resume", index, "payload", "approved"],
          message: "answer an approval with { approved: true } or { approved: false, reason? }",
        },
      };
    }
    if (payload.reason !== undefined && (typeof payload.reason !== "string" || payload.reason.length > 500)) {
      return {
        ok: false,
        problem: { path: ["resume", index, "payload", "reason"], message: "a text of at most 500 characters" },
      };
    }
    decisions.push({
      callId: named.callId,
      approved: payload.approved,
      ...(typeof payload.reason === "string" && payload.reason ? { reason: payload.reason } : {}),
    });
  }
  if (runId === undefined)
    return { ok: false, problem: { path: ["resume"], message: "answer at least one interrupt" } };
  return { ok: true, runId, decisions };
}

export interface AguiRunOptions {
  /** The AG-UI thread and run, as the client named them. */
  threadId: string;
  runId: string;
  agent: string;
  /** Calls the client has seen already (a resumed run's approved calls): only their results are sent. */
  announced?: Iterable<string>;
  /** The Pantheon run being continued (a resume), for the state snapshots. */
  pantheonRunId?: string;
  sessionId?: string;
}

/**
 * Translates one Pantheon run stream into AG-UI events, in an order @ag-ui/client's verifier
 * accepts: RUN_STARTED, STATE_SNAPSHOT, TEXT_MESSAGE_START/CONTENT/END as tokens arrive (closed
 * before a tool call), TOOL_CALL_START/ARGS/END and TOOL_CALL_RESULT (a gate's refusal is the
 * call's result), and one terminal event: RUN_FINISHED (success, cancelled, or an interrupt per
 * pending approval) or RUN_ERROR.
 * @example
 * const run = makeAguiRun({ threadId, runId, agent: "scout" });
 * send(run.start());
 * for await (const event of runEvents) send(run.next(event));
 * send(run.end(null));
 */
export function makeAguiRun(options: AguiRunOptions) {
  const { threadId, runId } = options;
  const announced = new Set(options.announced ?? []);
  const refused = new Set<string>();
  const state: AguiAgentState = {
    agent: options.agent,
    status: "running",
    typing: true,
    runId: options.pantheonRunId ?? null,
    sessionId: options.sessionId ?? null,
  };
  let textId: string | null = null;
  let texts = 0;
  /** Text streamed since the last tool call: the stored reply may add a tail the tokens did not carry. */
  let sinceTool = "";
  let failure: { code: string; message: string } | null = null;
  let finished = false;

  let lastSnapshot = "";
  /** The state as it is now, or nothing when the client already has exactly this snapshot. */
  const snapshot = (): BaseEvent[] => {
    const json = JSON.stringify(state);
    if (json === lastSnapshot) return [];
    lastSnapshot = json;
    return [{ type: EventType.STATE_SNAPSHOT, snapshot: { ...state } } as BaseEvent];
  };

  function closeText(): BaseEvent[] {
    if (!textId) return [];
    const end = { type: EventType.TEXT_MESSAGE_END, messageId: textId } as BaseEvent;
    textId = null;
    return [end];
  }

  function text(delta: string): BaseEvent[] {
    if (!delta) return [];
    const out: BaseEvent[] = [];
    if (!textId) {
      texts += 1;
      textId = `${runId}-text-${texts}`;
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId: textId, role: "assistant" } as BaseEvent);
    }
    sinceTool += delta;
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: textId, delta } as BaseEvent);
    return out;
  }

  function toolCall(callId: string, name: string, args: unknown): BaseEvent[] {
    sinceTool = "";
    const out = closeText();
    if (announced.has(callId)) return out;
    announced.add(callId);
    out.push({ type: EventType.TOOL_CALL_START, toolCallId: callId, toolCallName: name } as BaseEvent);
    // A refused call's arguments are not in its gate event: no ARGS rather than made-up ones.
    if (args !== undefined)
      out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: callId, delta: JSON.stringify(args) } as BaseEvent);
    out.push({ type: EventType.TOOL_CALL_END, toolCallId: callId } as BaseEvent);
    return out;
  }

  const result = (callId: string, content: string): BaseEvent =>
    ({
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${callId}-result`,
      toolCallId: callId,
      role: "tool",
      content,
    }) as BaseEvent;

  function finish(terminal: BaseEvent): BaseEvent[] {
    finished = true;
    state.status = "idle";
    state.typing = false;
    return [...closeText(), ...snapshot(), terminal];
  }

  return {
    get finished() {
      return finished;
    },

    /** The Pantheon run behind this AG-UI run, once the stream has named it. */
    get pantheonRunId() {
      return state.runId;
    },

    start(): BaseEvent[] {
      return [{ type: EventType.RUN_STARTED, threadId, runId } as BaseEvent, ...snapshot()];
    },

    next(event: StreamedRunEvent): BaseEvent[] {
      if (finished) return [];
      switch (event.type) {
        case "run":
          state.runId = event.runId;
          state.sessionId = event.sessionId;
          return snapshot();
        case "token":
          return text(event.text);
        case "tool_call":
          return toolCall(event.callId, event.name, event.arguments ?? {});
        case "gate":
          if (event.allow) return [];
          // A call that waits for a person is announced with its interrupt when the stream ends.
          if (event.pending === "approval") return [];
          if (refused.has(event.callId)) return [];
          refused.add(event.callId);
          return [
            ...toolCall(event.callId, event.tool ?? "tool", undefined),
            result(event.callId, `refused by gate '${event.gate}': ${event.reason ?? "no reason given"}`),
          ];
        case "tool_result":
          return [
            ...closeText(),
            result(event.callId, event.ok ? (event.output ?? "") : `error: ${event.error ?? "the tool failed"}`),
          ];
        case "status": {
          if (["completed", "failed", "cancelled"].includes(event.status)) return [];
          state.status = event.status;
          state.typing = event.status === "running";
          return snapshot();
        }
        case "error":
          failure = { code: event.code, message: event.message };
          return [];
        case "done": {
          state.runId = event.runId;
          if (event.status === "completed") {
            const reply = event.reply?.content ?? "";
            // Text a model wrote before a tool call is not the reply: add what the tokens did not carry.
            const tail = reply.startsWith(sinceTool) ? reply.slice(sinceTool.length) : "";
            return [
              ...text(tail),
              ...finish({
                type: EventType.RUN_FINISHED,
                threadId,
                runId,
                outcome: { type: "success" },
                result: { runId: event.runId, reply },
              } as BaseEvent),
            ];
          }
          if (event.status === "cancelled")
            return finish({
              type: EventType.RUN_FINISHED,
              threadId,
              runId,
              outcome: { type: "cancelled" },
            } as BaseEvent);
          const message = failure?.message ?? `run ${event.runId} ended ${event.status}`;
          return finish({
            type: EventType.RUN_ERROR,
            message,
            code: failure?.code === "cancelled" ? "cancelled" : `run_${event.status}`,
          } as BaseEvent);
        }
      }
    },

    /**
     * The agent's stream ended. After `done` nothing is left; a run waiting for approval ends with one
     * interrupt per pending call (the call announced first, so the client can show it); an error the
     * stream carried without `done` is a RUN_ERROR; any other wait (another agent's answer) finishes
     * the AG-UI run with the Pantheon run's status as its result.
     */
    end(waiting: { runId: string; status: string; pending: PendingCall[]; decideBy?: number } | null): BaseEvent[] {
      if (finished) return [];
      if (failure && waiting?.status !== "waiting_approval")
        return finish({ type: EventType.RUN_ERROR, message: failure.message, code: failure.code } as BaseEvent);
      if (waiting?.status === "waiting_approval" && waiting.pending.length > 0) {
        state.runId = waiting.runId;
        const calls = waiting.pending.flatMap((p) => toolCall(p.callId, p.tool, p.arguments));
        const interrupts: Interrupt[] = waiting.pending.map((p) => ({
          id: approvalInterruptId(waiting.runId, p.callId),
          reason: "tool_approval",
          message: `'${p.tool}' needs a person's approval before it runs`,
          toolCallId: p.callId,
          responseSchema: approvalResponseSchema as unknown as Record<string, unknown>,
          metadata: { tool: p.tool, arguments: p.arguments, runId: waiting.runId },
          // Past this the run fails on its own (the agent's approval wait limit): the client stops offering it.
          ...(waiting.decideBy !== undefined ? { expiresAt: new Date(waiting.decideBy).toISOString() } : {}),
        }));
        finished = true;
        state.status = "waiting_approval";
        state.typing = false;
        return [
          ...calls,
          ...closeText(),
          ...snapshot(),
          { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "interrupt", interrupts } } as BaseEvent,
        ];
      }
      const status = waiting?.status ?? "unknown";
      return finish({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        outcome: { type: "success" },
        result: { runId: waiting?.runId ?? state.runId, status },
      } as BaseEvent);
    },
  };
}

export type AguiRun = ReturnType<typeof makeAguiRun>;
