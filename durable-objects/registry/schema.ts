import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Agents of one project. The agent's own Durable Object keeps a copy of this profile. */
export const agents = sqliteTable("agents", {
  name: text("name").primaryKey(),
  description: text("description").notNull(),
  systemPrompt: text("system_prompt").notNull(),
  model: text("model", { mode: "json" }).notNull(),
  /**
   * Tools, limits, gates, rate limits and HTTP tools (core/agents AgentRuntime). Defaults of a json
   * column are values, not JSON text: drizzle stringifies them, so `"{}"` would be stored as a string.
   */
  runtime: text("runtime", { mode: "json" }).notNull().default({}),
  /** The agent's script as JSON (ActorScript) once one is set; null until then. */
  script: text("script", { mode: "json" }),
  scriptSource: text("script_source"),
  /**
   * Who last configured the agent's script (core/auth RunPrincipal): its behaviors' and schedules'
   * runs act with these rights. Null for a script set before configurers were recorded (such runs
   * act with the least scope, `chat`).
   */
  configuredBy: text("configured_by", { mode: "json" }),
  connections: text("connections", { mode: "json" }).notNull(),
  parent: text("parent"),
  /** Its role (`a code reviewer`), when one was given. */
  role: text("role"),
  /** Standing goals (string[]): in every run's context, and what a tick works toward. */
  goals: text("goals", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** When its supervisor archived it (a spawned child done with its goal): out of the graph, history kept. */
  archivedAt: integer("archived_at"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** API tokens. Only the SHA-256 hash of a token is stored; the token is shown once at creation. */
export const tokens = sqliteTable("tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  hash: text("hash").notNull().unique(),
  /**
   * What the token may do (core/auth Scope). Tokens made before scopes existed could do everything,
   * so the column's default keeps them `admin`; new tokens name their scope.
   */
  scope: text("scope").notNull().default("admin"),
  createdAt: integer("created_at").notNull(),
  lastUsedAt: integer("last_used_at"),
  /** The person a device's token belongs to (made by redeeming an invite); null for a plain token. */
  person: text("person"),
  /** What the device said it is when it redeemed the invite (shown in token lists), if anything. */
  device: text("device"),
});

/**
 * Invites: a one-time sign-in link for a person. Only the SHA-256 of its code is stored; redeeming
 * it once (before `expiresAt`) makes the device's own token and records it here.
 */
export const invites = sqliteTable("invites", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  scope: text("scope").notNull(),
  hash: text("hash").notNull().unique(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  /** Set once, when the link is redeemed: the link then never works again. */
  usedAt: integer("used_at"),
  tokenId: text("token_id"),
});

/**
 * Every bus message of the project and where it is (core/bus BusLogState): sent, delivered,
 * applied, answered, or a final refused/timeout/dead/ignored. Written by the asker, the queue
 * consumers and the answering agent; a record only moves forward.
 */
export const busLog = sqliteTable(
  "bus_log",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    type: text("type").notNull(),
    fromAgent: text("from_agent").notNull(),
    toAgent: text("to_agent").notNull(),
    depth: integer("depth").notNull(),
    /** The asking run and its tool call (replyTo). */
    askerRunId: text("asker_run_id").notNull(),
    callId: text("call_id").notNull(),
    /** Requests: the run the target started for it, and that run's last known status. */
    runId: text("run_id"),
    runStatus: text("run_status"),
    state: text("state").notNull(),
    /** The question, the answer, or the error (clipped). */
    text: text("text").notNull(),
    code: text("code"),
    /** Why the record reached its state, when that is not obvious (a refusal, a dead letter). */
    note: text("note"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("bus_log_conversation").on(t.conversationId, t.createdAt),
    index("bus_log_to_state").on(t.toAgent, t.state),
  ],
);

/**
 * The project's own secrets, sealed (core/secrets: AES-GCM under the deployment key, bound to the
 * project and the name). The registry never holds the key: the worker seals, the agent that uses a
 * secret opens it.
 */
export const secrets = sqliteTable("secrets", {
  name: text("name").primaryKey(),
  iv: text("iv").notNull(),
  data: text("data").notNull(),
  /** Keyed HMAC of the value (hex): the list shows its first 8 characters; bots are told apart by it. */
  fingerprint: text("fingerprint").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Deployment (worker) secrets the deployment admin granted to this project, by name. */
export const secretGrants = sqliteTable("secret_grants", {
  name: text("name").primaryKey(),
  grantedAt: integer("granted_at").notNull(),
});

/**
 * Web Push subscriptions (core/push): one per browser of a person's device, made with that device's
 * token. Pushes go only to subscriptions whose token still exists, so a revoked device or a deleted
 * person gets nothing more; a push service's 404 or 410 removes the row.
 */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: text("id").primaryKey(),
    tokenId: text("token_id").notNull(),
    endpoint: text("endpoint").notNull().unique(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("push_subscriptions_token").on(t.tokenId)],
);

/** The agents a person muted: nothing of theirs notifies that person. */
export const pushMutes = sqliteTable(
  "push_mutes",
  {
    person: text("person").notNull(),
    agent: text("agent").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("push_mutes_person_agent").on(t.person, t.agent)],
);
