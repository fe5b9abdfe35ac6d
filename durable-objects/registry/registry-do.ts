import { DurableObject } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { agentRuntimeSchema, type AgentInput, type AgentPatch, type AgentProfile } from "../../core/agents";
import { newToken, sha256Hex } from "../../core/auth";
import { PantheonError, type Result } from "../../core/errors";
import migrations from "../../migrations/registry/migrations.js";
import * as schema from "./schema";

export interface TokenInfo {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

type AgentRow = typeof schema.agents.$inferSelect;

function toProfile(row: AgentRow): AgentProfile {
  return {
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    model: row.model as AgentProfile["model"],
    runtime: agentRuntimeSchema.parse(row.runtime ?? {}),
    connections: (row.connections as string[]) ?? [],
    script: (row.script ?? null) as AgentProfile["script"],
    parent: row.parent,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const fail = (error: PantheonError) => error.toFailure();
const missing = (name: string) => fail(new PantheonError("not_found", `agent '${name}' does not exist`, { details: { agent: name } }));

/**
 * One per project: the agents of the project, their connections, and API tokens.
 * Methods return `Result`s rather than throwing, because only plain Errors survive RPC.
 */
export class RegistryDO extends DurableObject<Env> {
  private readonly db: DrizzleSqliteDODatabase<typeof schema>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
  }

  /** A bare round trip for the benchmarks (`GET /api/health/echo`): no storage, no work. */
  echo(x: string): string {
    return x;
  }

  listAgents(): AgentProfile[] {
    return this.db.select().from(schema.agents).orderBy(asc(schema.agents.name)).all().map(toProfile);
  }

  getAgent(name: string): Result<AgentProfile> {
    const row = this.db.select().from(schema.agents).where(eq(schema.agents.name, name)).get();
    return row ? { ok: true, value: toProfile(row) } : missing(name);
  }

  createAgent(input: AgentInput & { parent?: string; connections?: string[] }): Result<AgentProfile> {
    if (this.db.select({ name: schema.agents.name }).from(schema.agents).where(eq(schema.agents.name, input.name)).get()) {
      return fail(new PantheonError("conflict", `an agent named '${input.name}' already exists`, { details: { agent: input.name } }));
    }
    const now = Date.now();
    const row = this.db
      .insert(schema.agents)
      .values({
        name: input.name,
        description: input.description,
        systemPrompt: input.systemPrompt,
        model: input.model,
        runtime: input.runtime,
        connections: input.connections ?? [],
        parent: input.parent ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    return { ok: true, value: toProfile(row) };
  }

  updateAgent(name: string, patch: AgentPatch & { connections?: string[]; script?: AgentProfile["script"]; scriptSource?: string }): Result<AgentProfile> {
    const values: Partial<AgentRow> = { updatedAt: Date.now() };
    if (patch.description !== undefined) values.description = patch.description;
    if (patch.systemPrompt !== undefined) values.systemPrompt = patch.systemPrompt;
    if (patch.model !== undefined) values.model = patch.model;
    if (patch.runtime !== undefined) values.runtime = patch.runtime;
    if (patch.connections !== undefined) values.connections = patch.connections;
    if (patch.script !== undefined) values.script = patch.script;
    if (patch.scriptSource !== undefined) values.scriptSource = patch.scriptSource;
    const row = this.db.update(schema.agents).set(values).where(eq(schema.agents.name, name)).returning().get();
    return row ? { ok: true, value: toProfile(row) } : missing(name);
  }

  getScriptSource(name: string): Result<string | null> {
    const row = this.db.select({ source: schema.agents.scriptSource }).from(schema.agents).where(eq(schema.agents.name, name)).get();
    return row ? { ok: true, value: row.source } : missing(name);
  }

  deleteAgent(name: string): Result<true> {
    const row = this.db.delete(schema.agents).where(eq(schema.agents.name, name)).returning().get();
    if (!row) return missing(name);
    // Connections to a deleted agent are dropped so no request can be routed to it.
    for (const other of this.listAgents()) {
      if (other.connections.includes(name)) {
        this.updateAgent(other.name, { connections: other.connections.filter((c) => c !== name) });
      }
    }
    return { ok: true, value: true };
  }

  async createToken(name: string): Promise<TokenInfo & { token: string }> {
    const token = newToken();
    const row = this.db
      .insert(schema.tokens)
      .values({ id: crypto.randomUUID(), name, hash: await sha256Hex(token), createdAt: Date.now() })
      .returning()
      .get();
    return { id: row.id, name: row.name, createdAt: row.createdAt, lastUsedAt: null, token };
  }

  listTokens(): TokenInfo[] {
    return this.db
      .select({ id: schema.tokens.id, name: schema.tokens.name, createdAt: schema.tokens.createdAt, lastUsedAt: schema.tokens.lastUsedAt })
      .from(schema.tokens)
      .orderBy(asc(schema.tokens.createdAt))
      .all();
  }

  deleteToken(id: string): Result<true> {
    const row = this.db.delete(schema.tokens).where(eq(schema.tokens.id, id)).returning().get();
    return row ? { ok: true, value: true } : fail(new PantheonError("not_found", `token '${id}' does not exist`, { details: { token: id } }));
  }

  /** The token with this SHA-256 hash (its name, never the token), or null; records when it was last used. */
  verifyTokenHash(hash: string): { id: string; name: string } | null {
    const row = this.db.select({ id: schema.tokens.id, name: schema.tokens.name }).from(schema.tokens).where(eq(schema.tokens.hash, hash)).get();
    if (!row) return null;
    this.db.update(schema.tokens).set({ lastUsedAt: Date.now() }).where(eq(schema.tokens.id, row.id)).run();
    return row;
  }
}
