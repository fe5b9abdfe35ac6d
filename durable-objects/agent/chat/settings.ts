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
export function makeSettingsStore(db: DrizzleSqliteDODatabase<typeof schema>, clock: Clock): SettingsPort {
  // Read on every turn (the profile, a session's summary): built once.
  const byKey = db.select({ value: schema.settings.value }).from(schema.settings).where(eq(schema.settings.key, sql.placeholder("key"))).prepare();
  return {
    get<T>(key: string): T | undefined {
      return byKey.get({ key })?.value as T | undefined;
    },
    set(key: string, value: unknown): void {
      const now = clock.now();
      db.insert(schema.settings)
        .values({ key, value, updatedAt: now })
        .onConflictDoUpdate({ target: schema.settings.key, set: { value, updatedAt: now } })
        .run();
    },
  };
}
