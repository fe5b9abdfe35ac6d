// ACP (Agent Client Protocol) mapping: a Pantheon run's events as ACP session updates, a prompt's
// content blocks as a message, a run's end as a stop reason. Pure, and type imports only, so the
// CLI's bridge (workers/doors/acp/agent.ts) runs it under Node's type stripping with no build step.
import type { ContentBlock, PermissionOption, SessionUpdate, StopReason, ToolKind } from "@agentclientprotocol/sdk";
import type { StreamedRunEvent } from "../run-events";

/** The permission options of an approval-gated tool call: approve or reject this one call. */
export const permissionOptions: PermissionOption[] = [
  { optionId: "approve", name: "Approve", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

/** The ACP kind of a Pantheon tool, for the editor's icon: fetches, searches, asking another agent. */
export function toolKindOf(name: string): ToolKind {
  if (name.startsWith("http.") || name === "http") return "fetch";
  if (name.includes("search")) return "search";
  if (name.startsWith("ask_")) return "think";
  if (name.startsWith("memory.") || name === "clock.now") return "read";
  return "other";
}

const text = (value: string): ContentBlock => ({ type: "text", text: value });

/**
 * Follows a turn's text: tokens streamed since the last tool call are the reply so far (text a
 * model writes before it calls a tool is not the reply), so at the end only the part of the stored
 * reply the client has not seen is sent.
 */
export interface ReplyTracker {
  token(text: string): void;
  toolCall(): void;
  /** The part of the final reply not yet streamed ("" when all of it was). */
  tail(reply: string): string;
}

export function makeReplyTracker(): ReplyTracker {
  let sinceTool = "";
  return {
    token(value) {
      sinceTool += value;
    },
    toolCall() {
      sinceTool = "";
    },
    tail(reply) {
      if (reply.startsWith(sinceTool)) return reply.slice(sinceTool.length);
      return sinceTool ? `\n${reply}` : reply;
    },
  };
}

/**
 * The session updates of one run event, alone (a turn orders them with `makeTurnUpdates`): tokens
 * as agent message chunks, a tool call as `tool_call` (pending), in progress once the gates let it through, a gate's refusal as its failure — except the approval gate, which leaves the call
 * pending for the permission request — and a tool's result as its completion or failure.
 * @example
 * sessionUpdatesOf({ type: "token", text: "Hi" }); // [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi" } }]
 */
export function sessionUpdatesOf(event: StreamedRunEvent): SessionUpdate[] {
  switch (event.type) {
    case "token":
      return event.text ? [{ sessionUpdate: "agent_message_chunk", content: text(event.text) }] : [];
    case "tool_call":
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: event.callId,
          title: event.name,
          kind: toolKindOf(event.name),
          status: "pending",
          rawInput: event.arguments,
        },
      ];
    case "gate":
      // The approval gate decides last: once it lets a call through, the call runs.
      if (event.allow)
        return event.gate === "approval"
          ? [{ sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress" }]
          : [];
      if (event.gate === "approval")
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.callId,
            status: "pending",
            content: [{ type: "content", content: text("waiting for a person's approval") }],
          },
        ];
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: "failed",
          content: [
            {
              type: "content",
              content: text(`gate ${event.gate} refused the call: ${event.reason ?? "no reason given"}`),
            },
          ],
        },
      ];
    case "tool_result":
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: event.ok ? "completed" : "failed",
          content: [
            {
              type: "content",
              content: text(event.ok ? (event.output ?? "") : `failed: ${event.error ?? "no reason given"}`),
            },
          ],
          rawOutput: event.ok ? { output: event.output ?? "" } : { error: event.error ?? "" },
        },
      ];
    default:
      return [];
  }
}

/** A tool call as the agent knows it when it first shows: its id, its tool and (once known) its arguments. */
export interface AnnouncedCall {
  callId: string;
  name: string;
  arguments?: unknown;
}

/**
 * One turn's session updates, in the order ACP asks for: a tool call is announced (`tool_call`,
 * pending) before any `tool_call_update` of it. The run streams a call's gate decisions before the
 * call itself starts (and an approval-gated call does not start until a person decides), so the
 * first event naming a call announces it; a later `tool_call` event only adds its arguments.
 * @example
 * const turn = makeTurnUpdates();
 * turn.of({ type: "gate", callId: "c", gate: "approval", allow: true, tool: "clock.now" }); // [tool_call (pending), tool_call_update (in_progress)]
 */
export interface TurnUpdates {
  /** The updates of one run event, its call announced first when it was not yet. */
  of(event: StreamedRunEvent): SessionUpdate[];
  /** `tool_call` (pending) for a call not announced yet (one read back from the run), else nothing. */
  announce(call: AnnouncedCall): SessionUpdate[];
}

export function makeTurnUpdates(): TurnUpdates {
  const announced = new Set<string>();
  const announce = (call: AnnouncedCall): SessionUpdate[] => {
    if (announced.has(call.callId)) return [];
    announced.add(call.callId);
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: call.callId,
        title: call.name,
        kind: toolKindOf(call.name),
        status: "pending",
        ...(call.arguments !== undefined ? { rawInput: call.arguments } : {}),
      },
    ];
  };
  return {
    announce,
    of(event) {
      if (event.type === "tool_call") {
        if (!announced.has(event.callId))
          return announce({ callId: event.callId, name: event.name, arguments: event.arguments });
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.callId, rawInput: event.arguments }];
      }
      if (event.type === "gate")
        return [...announce({ callId: event.callId, name: event.tool ?? "tool" }), ...sessionUpdatesOf(event)];
      if (event.type === "tool_result")
        return [...announce({ callId: event.callId, name: event.name }), ...sessionUpdatesOf(event)];
      return sessionUpdatesOf(event);
    },
  };
}

/** A traced tool result (a run's `tool_result` step), as the update that closes its tool call. */
export function toolResultUpdate(
  callId: string,
  result: { ok: boolean; output?: string; error?: string },
): SessionUpdate {
  return sessionUpdatesOf({
    type: "tool_result",
    callId,
    name: "",
    ok: result.ok,
    ...(result.output !== undefined ? { output: result.output } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
    ms: 0,
  })[0]!;
}

/**
 * How a prompt turn ends, from its run's status: completed → `end_turn`, cancelled → `cancelled`;
 * anything else is not a stop (a failure is the prompt's error, an approval wait asks first).
 */
export function stopReasonOf(status: string): StopReason | undefined {
  if (status === "completed") return "end_turn";
  if (status === "cancelled") return "cancelled";
  return undefined;
}

/**
 * A prompt's content blocks as one message: text as it is, embedded text resources with their URI,
 * resource links as links. Images and audio are not understood (the agent is not advertised as
 * taking them) and are refused by name.
 */
export function promptTextOf(
  blocks: readonly ContentBlock[],
): { ok: true; text: string } | { ok: false; reason: string } {
  const pieces: string[] = [];
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") pieces.push(block.text);
    else if (block.type === "resource_link") pieces.push(`[${block.name}](${block.uri})`);
    else if (block.type === "resource" && "text" in block.resource)
      pieces.push(`${block.resource.uri}:\n${block.resource.text}`);
    else return { ok: false, reason: `prompt[${index}]: ${block.type} content is not supported; send text` };
  }
  const joined = pieces.join("\n").trim();
  if (!joined) return { ok: false, reason: "prompt: the prompt has no text" };
  if (joined.length > 32_000) return { ok: false, reason: "prompt: at most 32,000 characters" };
  return { ok: true, text: joined };
}

/** A stored message of the session, replayed by `session/load` as the chunk of its author. */
export function historyUpdateOf(message: { role: string; content: string }): SessionUpdate | null {
  if (message.role === "user") return { sessionUpdate: "user_message_chunk", content: text(message.content) };
  if (message.role === "assistant" && message.content)
    return { sessionUpdate: "agent_message_chunk", content: text(message.content) };
  return null;
}
