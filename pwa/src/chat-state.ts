import type { RunEvent, StoredMessage, ToolCall, TraceStep } from "./api";

/**
 * The chat transcript as the screen shows it. Every item has a stable `key`, derived from
 * server ids where they exist, so the same message arriving twice (SSE, WebSocket, history
 * catch-up) lands on the same item instead of a duplicate.
 */
export interface ChatMessageItem {
  kind: "message";
  key: string;
  id?: string;
  role: StoredMessage["role"];
  content: string;
  /** Who wrote a request: the invited person whose device sent it, or an asking agent. */
  name?: string;
  createdAt: number;
  runId?: string;
  streaming?: boolean;
  /** Still in the offline outbox. */
  queued?: boolean;
  /** Pictures sent with the message: stored ones by id, ones still on the device by blob URL. */
  images?: ChatImage[];
}

export interface ChatImage {
  id?: string;
  /** A blob URL of the bytes on this device (before upload, or already fetched). */
  url?: string;
  type?: string;
  width?: number;
  height?: number;
}

export interface GateDecision {
  gate: string;
  allow: boolean;
  reason?: string;
}

export interface ChatToolItem {
  kind: "tool";
  key: string;
  callId: string;
  runId?: string;
  name: string;
  arguments: unknown;
  gates: GateDecision[];
  result?: { ok: boolean; output?: unknown; error?: unknown; ms?: number };
  /** A person's decision on a call the approval gate held (from the run's trace). */
  approval?: { approved: boolean; by?: string };
  createdAt: number;
}

export type ChatItem = ChatMessageItem | ChatToolItem;

export function toTime(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "number") return value < 1e12 ? value * 1000 : value;
  const t = Date.parse(value);
  return Number.isNaN(t) ? 0 : t;
}

function normaliseCall(call: ToolCall): { callId: string; name: string; arguments: unknown } {
  return { callId: call.id, name: call.name, arguments: call.arguments };
}

function byTime(items: ChatItem[]): ChatItem[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => a.item.createdAt - b.item.createdAt || a.index - b.index)
    .map((x) => x.item);
}

function upsert(items: ChatItem[], next: ChatItem): ChatItem[] {
  const at = items.findIndex((i) => i.key === next.key);
  if (at < 0) return [...items, next];
  const copy = items.slice();
  copy[at] = next;
  return copy;
}

/** Merges stored messages (any order, any overlap) into the transcript without duplicates. */
export function mergeHistory(items: ChatItem[], stored: StoredMessage[]): ChatItem[] {
  let out = items;
  for (const m of [...stored].sort((a, b) => toTime(a.createdAt) - toTime(b.createdAt))) {
    const createdAt = toTime(m.createdAt);
    if (m.role === "tool") {
      const key = `t:${m.toolCallId ?? m.id}`;
      const existing = out.find((i): i is ChatToolItem => i.key === key && i.kind === "tool");
      const result = { ok: !/^error/i.test(m.content), output: m.content };
      out = upsert(
        out,
        existing
          ? { ...existing, result: existing.result ?? result }
          : {
              kind: "tool",
              key,
              callId: m.toolCallId ?? m.id,
              runId: m.runId,
              name: m.name ?? "tool",
              arguments: undefined,
              gates: [],
              result,
              createdAt,
            },
      );
      continue;
    }
    if (m.content || !m.toolCalls?.length) {
      const images = storedImages(m);
      out = upsert(out, {
        kind: "message",
        key: `m:${m.id}`,
        id: m.id,
        role: m.role,
        content: m.content,
        ...(m.role === "user" && m.name ? { name: m.name } : {}),
        ...(images.length ? { images } : {}),
        createdAt,
        runId: m.runId,
      });
    }
    for (const call of m.toolCalls ?? []) {
      const c = normaliseCall(call);
      const key = `t:${c.callId}`;
      const existing = out.find((i): i is ChatToolItem => i.key === key && i.kind === "tool");
      out = upsert(
        out,
        existing
          ? { ...existing, name: c.name, arguments: existing.arguments ?? c.arguments, createdAt: createdAt + 1 }
          : {
              kind: "tool",
              key,
              callId: c.callId,
              runId: m.runId,
              name: c.name,
              arguments: c.arguments,
              gates: [],
              createdAt: createdAt + 1,
            },
      );
    }
    // A final stored reply (no further tool calls) replaces every live draft of its run.
    if (m.role === "assistant" && m.runId && !m.toolCalls?.length) {
      out = out.filter((i) => !(i.kind === "message" && i.key.startsWith(`draft:${m.runId}:`)));
    }
  }
  return byTime(out);
}

/** Adds a message the person just typed, before the server has given it an id. */
export function addLocalMessage(
  items: ChatItem[],
  localId: string,
  content: string,
  now: number,
  queued = false,
  images: ChatImage[] = [],
): ChatItem[] {
  return [
    ...items,
    {
      kind: "message",
      key: `local:${localId}`,
      role: "user",
      content,
      createdAt: now,
      queued,
      ...(images.length ? { images } : {}),
    },
  ];
}

/** A stored message's picture references (`images` on user messages), whatever else the server adds. */
export function storedImages(m: StoredMessage): ChatImage[] {
  const images = (m as { images?: unknown }).images;
  if (!Array.isArray(images)) return [];
  return images.flatMap((i: unknown) => {
    if (typeof i === "string") return [{ id: i }];
    const r = i as { id?: unknown; type?: unknown; width?: unknown; height?: unknown } | null;
    if (typeof r?.id !== "string") return [];
    return [
      {
        id: r.id,
        ...(typeof r.type === "string" ? { type: r.type } : {}),
        ...(typeof r.width === "number" ? { width: r.width } : {}),
        ...(typeof r.height === "number" ? { height: r.height } : {}),
      },
    ];
  });
}

export function removeLocal(items: ChatItem[], localId: string): ChatItem[] {
  return items.filter((i) => i.key !== `local:${localId}`);
}

/**
 * Applies one streamed event to the transcript. `localId` ties the `run` event back to the
 * optimistic message so it is replaced by the stored one rather than shown twice.
 */
export function applyRunEvent(
  items: ChatItem[],
  event: RunEvent,
  ctx: { runId: string | null; localId?: string },
): ChatItem[] {
  const runId = ctx.runId ?? undefined;
  switch (event.type) {
    case "run": {
      const without = ctx.localId ? removeLocal(items, ctx.localId) : items;
      return event.userMessage ? mergeHistory(without, [event.userMessage]) : without;
    }
    case "token": {
      const last = items[items.length - 1];
      if (last?.kind === "message" && last.streaming && last.runId === runId) {
        return [...items.slice(0, -1), { ...last, content: last.content + event.text }];
      }
      return [
        ...items,
        {
          kind: "message",
          key: `draft:${runId}:${items.length}`,
          role: "assistant",
          content: event.text,
          createdAt: after(items),
          runId,
          streaming: true,
        },
      ];
    }
    case "tool_call": {
      const key = `t:${event.callId}`;
      // Gates decide before the tool runs, so the call's item usually exists already.
      if (items.some((i) => i.key === key))
        return mapTool(items, event.callId, (t) => ({ ...t, name: event.name, arguments: event.arguments }));
      return [
        ...items,
        {
          kind: "tool",
          key,
          callId: event.callId,
          runId,
          name: event.name,
          arguments: event.arguments,
          gates: [],
          createdAt: after(items),
        },
      ];
    }
    case "gate": {
      const decision = { gate: event.gate, allow: event.allow, reason: event.reason };
      // The server sends no `tool_call` for a call a gate refused: the first decision opens its item.
      if (!items.some((i) => i.kind === "tool" && i.callId === event.callId)) {
        return [
          ...items,
          {
            kind: "tool",
            key: `t:${event.callId}`,
            callId: event.callId,
            runId,
            name: "",
            arguments: undefined,
            gates: [decision],
            createdAt: after(items),
          },
        ];
      }
      return mapTool(items, event.callId, (t) =>
        t.gates.some((g) => g.gate === event.gate && g.allow === event.allow)
          ? t
          : { ...t, gates: [...t.gates, decision] },
      );
    }
    case "tool_result":
      return mapTool(items, event.callId, (t) => ({
        ...t,
        result: { ok: event.ok, output: event.output, error: event.error, ms: event.ms },
      }));
    case "done": {
      const settled = items.map((i) =>
        i.kind === "message" && i.streaming && i.runId === event.runId ? { ...i, streaming: false } : i,
      );
      if (!event.reply) return settled;
      // The controller fetches history after `done`, which brings back any text said between tool calls.
      const withoutDrafts = settled.filter((i) => !(i.kind === "message" && i.key.startsWith(`draft:${event.runId}:`)));
      // Streamed items are timed by arrival; keep the reply after them until history brings server times.
      return mergeHistory(withoutDrafts, [
        { ...event.reply, createdAt: Math.max(toTime(event.reply.createdAt), after(withoutDrafts)) },
      ]);
    }
    default:
      return items;
  }
}

/** A time just after everything on screen: streamed items are ordered by arrival. */
function after(items: ChatItem[]): number {
  let last = 0;
  for (const i of items) if (!(i.kind === "message" && i.queued)) last = Math.max(last, i.createdAt);
  return last + 1;
}

function mapTool(items: ChatItem[], callId: string, fn: (t: ChatToolItem) => ChatToolItem): ChatItem[] {
  return items.map((i) => (i.kind === "tool" && i.callId === callId ? fn(i) : i));
}

/** The newest server id in the transcript: where a catch-up after reconnecting starts from. */
export function lastSeenId(items: ChatItem[]): string | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === "message" && item.id) return item.id;
  }
  return null;
}

/**
 * Fills in what the stream could not say about a run's tool calls: the name and arguments of a
 * call a gate refused (no `tool_call` event comes for it), gate decisions that were missed, and
 * a person's approval or rejection.
 */
export function enrichFromTrace(items: ChatItem[], trace: TraceStep[]): ChatItem[] {
  let out = items;
  for (const step of trace) {
    const data = step.data as { callId?: unknown; tool?: unknown; arguments?: unknown; decisions?: unknown } | null;
    if (typeof data?.callId !== "string" || typeof data.tool !== "string") continue;
    const tool = data.tool;
    if (step.name === "approval") {
      const d = step.data as { approved?: unknown; by?: unknown };
      out = mapTool(out, data.callId, (t) => ({
        ...t,
        name: t.name || tool,
        approval: { approved: d.approved === true, ...(typeof d.by === "string" ? { by: d.by } : {}) },
      }));
    } else if (step.name === "tool_call") {
      out = mapTool(out, data.callId, (t) => ({
        ...t,
        name: t.name || tool,
        arguments: t.arguments ?? data.arguments,
      }));
    } else if (step.name === "gate_decisions" && Array.isArray(data.decisions)) {
      const gates = (data.decisions as { gate: string; decision: { allow: boolean; reason?: string } }[]).map((d) => ({
        gate: d.gate,
        allow: d.decision.allow,
        reason: d.decision.reason,
      }));
      out = mapTool(out, data.callId, (t) => ({
        ...t,
        name: t.name || tool,
        gates: t.gates.length >= gates.length ? t.gates : gates,
      }));
    }
  }
  return out;
}

/**
 * Rebuilds the tool items of a finished run from its trace, the way the stream showed them live,
 * placed just before the run's reply. Stored history keeps only the question and the reply, so
 * after a reload this is the only record of what the run did. Items are keyed by call id like
 * live ones: a call already on screen is filled in, never shown twice. Before the reply exists
 * (a run still waiting) only the calls on screen are filled in.
 */
export function restoreFromTrace(items: ChatItem[], runId: string, trace: TraceStep[]): ChatItem[] {
  const reply = items.find((i) => i.kind === "message" && i.role === "assistant" && i.runId === runId && !i.streaming);
  if (!reply) return enrichFromTrace(items, trace);
  const steps = trace.filter((s) => (s.data as { callId?: unknown } | null)?.callId !== undefined);
  const calls = [...new Set(steps.map((s) => String((s.data as { callId: unknown }).callId)))];
  if (calls.length === 0) return items;
  let out = items;
  calls.forEach((callId, n) => {
    if (out.some((i) => i.kind === "tool" && i.callId === callId)) return;
    const first = steps.find((s) => (s.data as { callId: unknown }).callId === callId);
    // Trace and messages share the agent's clock; the cap keeps the item above its reply regardless.
    const createdAt = Math.min(toTime(first?.startedAt), reply.createdAt - calls.length + n);
    out = [
      ...out,
      { kind: "tool", key: `t:${callId}`, callId, runId, name: "", arguments: undefined, gates: [], createdAt },
    ];
  });
  for (const step of steps) {
    if (step.name !== "tool_result" && step.name !== "agent_response") continue;
    const d = step.data as { callId: string; ok?: unknown; output?: unknown; error?: unknown };
    out = mapTool(out, d.callId, (t) =>
      t.result
        ? t
        : {
            ...t,
            result: {
              ok: d.ok !== false,
              output: d.output,
              error: d.error,
              ...(step.name === "tool_result" ? { ms: step.durationMs } : {}),
            },
          },
    );
  }
  return byTime(enrichFromTrace(out, trace));
}
