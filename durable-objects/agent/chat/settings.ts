import { eq, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { Clock } from "../../../core/ports";
import * as schema from "../schema";

/** Small key/value state of the agent: values are JSON. */
export interface SettingsPort {
  get<T>(key: string): T | undefined;
  set(key: string, value: unknown): void;
}

/**
 * The agent's `settings` table (its profile, each session's summary state, when memory was last
 * consolidated). The one place that reads and writes it.
 * @example
 * const settings = makeSettingsStore(db, clock);
 * settings.set("memory.consolidatedAt", Date.now());
 */
export function makeSettingsStore(
  db: DrizzleSqliteDODatabase<typeof schema>,
  clock: Clock,
): SettingsPort & { reset(): void } {
  // Read on every turn (the profile, a session's summary): built once.
  const byKey = db
    .select({ value: schema.settings.value })
    .from(schema.settings)
    .where(eq(schema.settings.key, sql.placeholder("key")))
    .prepare();
  // `set` binds the value already serialized (a placeholder inside sql`` skips the JSON column's encoder).
  const upsert = db
    .insert(schema.settings)
    .values({ key: sql.placeholder("key"), value: sql`${sql.placeholder("json")}`, updatedAt: sql.placeholder("now") })
    .onConflictDoUpdate({
      target: schema.settings.key,
      set: { value: sql`${sql.placeholder("json")}`, updatedAt: sql`${sql.placeholder("now")}` },
    })
    .prepare();
  // A turn reads the same few keys several times (the profile, the work binding, summaries) and this
  // object is their only writer, so each value's JSON is kept after its first read and kept current by
  // `set`. Callers get a fresh parse, never a shared object. `reset` drops it all, for a transaction
  // that rolled back or a wiped agent.
  const cache = new Map<string, string | undefined>();
  const parse = <T>(json: string | undefined): T | undefined =>
    json === undefined ? undefined : (JSON.parse(json) as T);
  return {
    get<T>(key: string): T | undefined {
      if (cache.has(key)) return parse<T>(cache.get(key));
      const value = byKey.get({ key })?.value;
      const json = value === undefined ? undefined : JSON.stringify(value);
      cache.set(key, json);
      return parse<T>(json);
    },
    set(key: string, value: unknown): void {
      const json = JSON.stringify(value) ?? "null";
      cache.delete(key);
      upsert.run({ key, json, now: clock.now() });
      cache.set(key, json);
    },
    reset(): void {
      cache.clear();
    },
  };
}
