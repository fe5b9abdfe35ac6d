import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Agents of one project. The agent's own Durable Object keeps a copy of this profile. */
export const agents = sqliteTable("agents", {
  name: text("name").primaryKey(),
  description: text("description").notNull(),
  systemPrompt: text("system_prompt").notNull(),
  model: text("model", { mode: "json" }).notNull(),
  /** Tools, limits, gates, rate limits and HTTP tools (core/agents AgentRuntime). */
  runtime: text("runtime", { mode: "json" }).notNull().default("{}"),
  /** The agent's script as JSON (ActorScript) once one is set; null until then. */
  script: text("script", { mode: "json" }),
  scriptSource: text("script_source"),
  connections: text("connections", { mode: "json" }).notNull(),
  parent: text("parent"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** API tokens. Only the SHA-256 hash of a token is stored; the token is shown once at creation. */
export const tokens = sqliteTable("tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  hash: text("hash").notNull().unique(),
  createdAt: integer("created_at").notNull(),
  lastUsedAt: integer("last_used_at"),
});
