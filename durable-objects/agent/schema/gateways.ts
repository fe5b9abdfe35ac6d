import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per configured messaging gateway of this agent (`telegram`, `email`): its settings. */
export const gatewaySettings = sqliteTable("gateway_settings", {
  kind: text("kind").primaryKey(),
  /** The gateway's configuration (core/gateways); holds the Telegram webhook secret, never a bot token. */
  config: text("config", { mode: "json" }).notNull(),
  /** The highest Telegram update id handled: Telegram redelivers, a repeated update is ignored. */
  lastUpdateId: integer("last_update_id"),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Which session an outside conversation maps to: a Telegram chat id, or an email message id (every
 * message of a thread, sent or received, points at the thread's session).
 */
export const gatewayThreads = sqliteTable(
  "gateway_threads",
  {
    kind: text("kind").notNull(),
    externalId: text("external_id").notNull(),
    sessionId: text("session_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.externalId] }), index("gateway_threads_session").on(t.sessionId)],
);
