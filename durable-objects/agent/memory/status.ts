import { and, count, isNotNull, isNull, ne, sql as sqlExpr, sum } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import * as schema from "../schema";
import type { MemoryPorts } from "./vectors";

type Db = DrizzleSqliteDODatabase<typeof schema>;
const { memories, memoryVectors } = schema;

/** What the memory holds (`store.status`): rows by kind, bytes, vectors by embedding space, and how many are missing. */
export function memoryStatus(deps: { db: Db; ports: () => MemoryPorts }) {
  const { db } = deps;
  const live = isNull(memories.supersededBy);
  const { embed } = deps.ports();
  const byKind: Record<string, number> = {};
  for (const row of db
    .select({ kind: memories.kind, n: count() })
    .from(memories)
    .where(live)
    .groupBy(memories.kind)
    .all())
    byKind[row.kind] = row.n;
  const totals = db
    .select({ n: count(), bytes: sum(sqlExpr`length(CAST(${memories.text} AS BLOB))`).mapWith(Number) })
    .from(memories)
    .get()!;
  const textBytes = totals.bytes ?? 0;
  const superseded = db.select({ n: count() }).from(memories).where(isNotNull(memories.supersededBy)).get()!.n;
  const spaces = db
    .select({ model: memoryVectors.model, dimensions: memoryVectors.dimensions, vectors: count() })
    .from(memoryVectors)
    .groupBy(memoryVectors.model, memoryVectors.dimensions)
    .all();
  const current = spaces.find((s) => s.model === embed.model)?.vectors ?? 0;
  const embeddable = db
    .select({ n: count() })
    .from(memories)
    .where(and(live, ne(memories.kind, "summary")))
    .get()!.n;
  const vectorBytes = spaces.reduce((total, s) => total + s.vectors * s.dimensions * 4, 0);
  return {
    total: totals.n,
    byKind,
    superseded,
    bytes: { text: textBytes, vectors: vectorBytes, total: textBytes + vectorBytes },
    embedder: { model: embed.model, dimensions: embed.dimensions, backend: deps.ports().backend },
    vectors: spaces,
    missingVectors: Math.max(0, embeddable - current),
  };
}
