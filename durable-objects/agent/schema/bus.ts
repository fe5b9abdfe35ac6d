import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Bus messages this agent has applied, by message id. Queues deliver at least once: a repeated id
 * is ignored. A request's row also remembers the run it started and the request itself, so the
 * answer can be sent when that run ends (even after a restart).
 */
export const busInbox = sqliteTable(
  "bus_inbox",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    fromAgent: text("from_agent").notNull(),
    conversationId: text("conversation_id").notNull(),
    depth: integer("depth").notNull(),
    runId: text("run_id"),
    /** The whole request (core/bus BusRequest), for the reply. Null for replies. */
    request: text("request", { mode: "json" }),
    /** applied → answered (requests); applied (replies). */
    status: text("status").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("bus_inbox_run").on(t.runId)],
);

/** Requests this agent sent and is waiting on, with their deadline. */
export const busOutbox = sqliteTable(
  "bus_outbox",
  {
    id: text("id").primaryKey(),
    runId: text("run_id").notNull(),
    callId: text("call_id").notNull(),
    target: text("target").notNull(),
    conversationId: text("conversation_id").notNull(),
    depth: integer("depth").notNull(),
    deadlineAt: integer("deadline_at").notNull(),
    /** pending → answered | failed | timeout | abandoned */
    status: text("status").notNull(),
    /**
     * What settled it (`{ answer }` or `{ error }`), kept so that a run evicted before it read its
     * answer gets the same answer when it is carried on — never a second request.
     */
    reply: text("reply", { mode: "json" }),
    createdAt: integer("created_at").notNull(),
    settledAt: integer("settled_at"),
  },
  (t) => [index("bus_outbox_run").on(t.runId, t.callId), index("bus_outbox_status").on(t.status)],
);

/**
 * Messages written but not yet accepted by the queue (requests and answers). A message is written
 * here in the same transaction as the state that caused it, and removed once the queue has taken
 * it; until then it is sent again on a backoff alarm and on every start.
 */
export const busSendQueue = sqliteTable("bus_send_queue", {
  id: text("id").primaryKey(),
  message: text("message", { mode: "json" }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("last_error"),
  createdAt: integer("created_at").notNull(),
});

/** One session per delegation conversation this agent answers in. */
export const busConversations = sqliteTable("bus_conversations", {
  conversationId: text("conversation_id").primaryKey(),
  sessionId: text("session_id").notNull(),
  createdAt: integer("created_at").notNull(),
});

/**
 * Fan-outs this agent runs (`fanOut`: one question to several connections, answers combined under a
 * policy). The group is the `run_id` of its requests in `bus_outbox`; its replies and decision live
 * here, so answers that arrive after an eviction still decide it, and the caller (or a second call
 * with the same id) reads the same result.
 */
export const busFanOuts = sqliteTable("bus_fanouts", {
  id: text("id").primaryKey(),
  targets: text("targets", { mode: "json" }).notNull().$type<string[]>(),
  question: text("question").notNull(),
  policy: text("policy").notNull(),
  conversationId: text("conversation_id").notNull(),
  depth: integer("depth").notNull(),
  /** core/bus FanOutReply[], one per ask that was answered or failed, in arrival order. */
  replies: text("replies", { mode: "json" })
    .notNull()
    .$type<{ target: string; key?: string; answer?: string; error?: string; at?: number }[]>(),
  /** Unused since the spec holds the policy's steps (kept: a column drop would rebuild the table). */
  critiquesSent: integer("critiques_sent", { mode: "boolean" }).notNull().default(false),
  /** core/bus FanOutSpec (weights, rounds, retries, tie rule); null on rows written before it (policy, targets and question then). */
  spec: text("spec", { mode: "json" }),
  /** Who waits for the decision besides an in-memory caller: a run's tool call, or a workflow's step. */
  replyTo: text("reply_to", { mode: "json" }).$type<{ runId: string; callId: string }>(),
  /** waiting → decided */
  status: text("status").notNull(),
  /** core/bus FanOutResult once decided. */
  result: text("result", { mode: "json" }),
  createdAt: integer("created_at").notNull(),
  decidedAt: integer("decided_at"),
});
