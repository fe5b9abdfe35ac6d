import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { agentNameSchema, projectNameSchema } from "../agents/profile";
import { scopes, type Scope } from "../auth/scopes";

/** Delegation depth allowed by default: a request at depth 11 is refused (DESIGN: bounded delegation). */
export const maxDelegationDepth = 10;
/** How long an asker waits for an answer before it gets a timeout error. */
export const defaultDeadlineMs = 2 * 60_000;

export const busErrorCodes = [
  "not_connected",
  "depth_exceeded",
  "not_found",
  "timeout",
  "expired",
  "dead_letter",
  "run_failed",
  "invalid",
  "spawn_failed",
  "unavailable",
] as const;
export type BusErrorCode = (typeof busErrorCodes)[number];

const id = lazySchema(() => z.string().min(1).max(200));
// A function, so the fields are built with the schema on first use, not when the module loads.
const base = () => ({
  id,
  /** The delegation chain this message belongs to: the id of the run that started it. */
  conversationId: id,
  from: agentNameSchema,
  to: agentNameSchema,
  project: projectNameSchema,
  /** 1 for a question asked by a run nobody delegated to; +1 per hop. */
  depth: z.number().int().min(1).max(1000),
  /** Where the answer goes: the asking run and its tool call. */
  replyTo: z.strictObject({ runId: id, callId: id }),
  deadlineAt: z.number().int().min(0),
  createdAt: z.number().int().min(0),
});

/**
 * One message between two agents on the bus (Cloudflare Queues). Validated at every boundary:
 * the producer, the queue consumer and the receiving Durable Object.
 */
export const busMessageSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    z.strictObject({
      ...base(),
      type: z.literal("request"),
      payload: z.strictObject({
        question: z.string().min(1).max(100_000),
        /**
         * The lowest scope of the chain so far (the asking run's): the run it starts acts with no
         * more. Absent (a sender before principals) = `chat`, the least.
         */
        scope: z.enum(scopes).optional(),
        /** Whom the asking run acts for, by name (for the receiver's trace). */
        by: z.string().max(300).optional(),
      }),
    }),
    z.strictObject({
      ...base(),
      type: z.literal("response"),
      payload: z.strictObject({ answer: z.string().max(200_000) }),
    }),
    z.strictObject({
      ...base(),
      type: z.literal("error"),
      payload: z.strictObject({ error: z.string().min(1).max(10_000), code: z.enum(busErrorCodes) }),
    }),
    /** The asker gave up its question (its run was cancelled): the run it started is cancelled too, and so on down the chain. */
    z.strictObject({
      ...base(),
      type: z.literal("cancel"),
      payload: z.strictObject({ reason: z.string().min(1).max(2000) }),
    }),
  ]),
);

export type BusMessage = z.infer<typeof busMessageSchema>;
export type BusRequest = Extract<BusMessage, { type: "request" }>;
export type BusReply = Extract<BusMessage, { type: "response" | "error" }>;
export type BusCancel = Extract<BusMessage, { type: "cancel" }>;

/** A message that failed validation, with what was wrong. */
export class BusMessageError extends Error {
  override readonly name = "BusMessageError";
  constructor(
    message: string,
    readonly issues: { path: (string | number)[]; message: string }[],
  ) {
    super(message);
  }
}

/**
 * Parses a bus message or throws BusMessageError naming every bad field.
 * @example
 * const message = parseBusMessage(queued.body); // BusMessage, or throws BusMessageError
 */
export function parseBusMessage(value: unknown): BusMessage {
  const result = busMessageSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: i.message,
  }));
  throw new BusMessageError(
    `not a bus message: ${issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    issues,
  );
}

export interface NewRequest {
  id: string;
  project: string;
  from: string;
  to: string;
  question: string;
  replyTo: { runId: string; callId: string };
  /** Of the conversation the asking run belongs to; a fresh one starts with the asking run's id. */
  conversationId: string;
  depth: number;
  now: number;
  deadlineMs?: number;
  /** Whom the asking run acts for: its scope and name travel with the question. */
  principal?: { scope: Scope; name: string };
}

/**
 * @example
 * const request = makeRequest({ id: crypto.randomUUID(), project: "default", from: "main", to: "airtable",
 *   question: "How many leads?", replyTo: { runId, callId }, conversationId: runId, depth: 1, now: Date.now() });
 */
export function makeRequest(input: NewRequest): BusRequest {
  return parseBusMessage({
    id: input.id,
    conversationId: input.conversationId,
    from: input.from,
    to: input.to,
    project: input.project,
    type: "request",
    payload: {
      question: input.question,
      ...(input.principal ? { scope: input.principal.scope, by: input.principal.name } : {}),
    },
    depth: input.depth,
    replyTo: input.replyTo,
    deadlineAt: input.now + (input.deadlineMs ?? defaultDeadlineMs),
    createdAt: input.now,
  }) as BusRequest;
}

/**
 * The id every reply to a request carries. One id for the answer and for any error about the same
 * request, so whichever reaches the asker first is applied and the rest are ignored as repeats.
 */
export const replyIdOf = (requestId: string) => `${requestId}:reply`;
export const requestIdOfReply = (replyId: string) =>
  replyId.endsWith(":reply") ? replyId.slice(0, -":reply".length) : replyId;

/** The id of the cancel of a request: one per request, so a repeat is applied once. */
export const cancelIdOf = (requestId: string) => `${requestId}:cancel`;
export const requestIdOfCancel = (cancelId: string) =>
  cancelId.endsWith(":cancel") ? cancelId.slice(0, -":cancel".length) : cancelId;

/**
 * The asker's cancel of a request it is still waiting on, travelling from the asker to the target
 * (the same route as the request: conversation, depth, replyTo).
 * @example
 * makeCancel({ requestId, project: "default", from: "main", to: "airtable", replyTo: { runId, callId }, conversationId, depth: 1, deadlineAt, reason: "cancelled by admin", now: Date.now() });
 */
export function makeCancel(input: {
  requestId: string;
  project: string;
  from: string;
  to: string;
  replyTo: { runId: string; callId: string };
  conversationId: string;
  depth: number;
  deadlineAt: number;
  reason: string;
  now: number;
}): BusCancel {
  return parseBusMessage({
    id: cancelIdOf(input.requestId),
    conversationId: input.conversationId,
    from: input.from,
    to: input.to,
    project: input.project,
    type: "cancel",
    payload: { reason: input.reason.slice(0, 2000) },
    depth: input.depth,
    replyTo: input.replyTo,
    deadlineAt: input.deadlineAt,
    createdAt: input.now,
  }) as BusCancel;
}

/** The answer to a request, travelling back from its target to the asker. */
export function makeResponse(request: BusRequest, answer: string, now: number): BusReply {
  return {
    ...request,
    id: replyIdOf(request.id),
    from: request.to,
    to: request.from,
    type: "response",
    payload: { answer },
    createdAt: now,
  };
}

/** An error about a request, sent to the asker (by the target, the consumer, or the dead-letter consumer). */
export function makeErrorReply(request: BusRequest, code: BusErrorCode, error: string, now: number): BusReply {
  return {
    ...request,
    id: replyIdOf(request.id),
    from: request.to,
    to: request.from,
    type: "error",
    payload: { error, code },
    createdAt: now,
  };
}
