import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { TokenBucket } from "../../../core/gates";
import * as schema from "../schema";

/** Rate-limit buckets in the agent's SQLite, so limits survive restarts. */
export function makeBucketStore(db: DrizzleSqliteDODatabase<typeof schema>) {
  return {
    load(): Map<string, TokenBucket> {
      return new Map(
        db
          .select()
          .from(schema.rateBuckets)
          .all()
          .map((row) => [row.key, { tokens: row.tokens, updatedAt: row.updatedAt }]),
      );
    },
    save(key: string, bucket: TokenBucket): void {
      db.insert(schema.rateBuckets)
        .values({ key, ...bucket })
        .onConflictDoUpdate({ target: schema.rateBuckets.key, set: bucket })
        .run();
    },
  };
}
