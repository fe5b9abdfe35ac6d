import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { VectorPort } from "../../core/ports";
import { makeSqliteIndex, type SqlLike, type SqliteIndexOptions } from "../../adapters/vector-sqlite";
import { axis, contractDimensions, runVectorIndexContract } from "./vector-index.contract";

/** A fresh AgentDO per call, so every test starts from an empty SQLite. */
function freshAgent() {
  return env.AGENT_DO.get(env.AGENT_DO.idFromName(`vectors-${crypto.randomUUID()}`));
}

/** Runs `body` inside the agent with its real `ctx.storage.sql`. */
function inAgent<T>(stub: ReturnType<typeof freshAgent>, body: (sql: SqlLike) => T | Promise<T>): Promise<T> {
  return runInDurableObject(stub, (_instance, state) => body(state.storage.sql));
}

/**
 * A VectorPort whose every call runs inside the Durable Object. The adapter instance is built on
 * the first call and kept, as AgentDO keeps it, so the in-memory copy is exercised across calls.
 */
function openInAgent(stub: ReturnType<typeof freshAgent>, options: SqliteIndexOptions): VectorPort {
  let index: VectorPort | undefined;
  const within = <T>(call: (index: VectorPort) => Promise<T>) =>
    inAgent(stub, (sql) => call((index ??= makeSqliteIndex(sql, options))));
  return {
    upsert: (records) => within((i) => i.upsert(records)),
    query: (values, query) => within((i) => i.query(values, query)),
    deleteByIds: (ids) => within((i) => i.deleteByIds(ids)),
  };
}

runVectorIndexContract({
  name: "the SQLite index (in a real AgentDO)",
  make(dimensions) {
    const stub = freshAgent();
    return {
      open: (namespace) => openInAgent(stub, { dimensions, namespace }),
      storedIds: (namespace) =>
        inAgent(stub, (sql) =>
          sql
            .exec<{ id: string }>("SELECT id FROM pantheon_vec_items WHERE namespace = ? ORDER BY id", namespace)
            .toArray()
            .map((r) => r.id),
        ),
    };
  },
});

describe("the SQLite index", () => {
  it("creates only pantheon_vec_ tables, and opening it twice is harmless", async () => {
    const stub = freshAgent();
    const tables = await inAgent(stub, (sql) => {
      makeSqliteIndex(sql, { dimensions: 8 });
      makeSqliteIndex(sql, { dimensions: 8 });
      return sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'pantheon_vec_%' ORDER BY name",
        )
        .toArray();
    });
    expect(tables.map((t) => t.name)).toEqual(["pantheon_vec_items", "pantheon_vec_lists", "pantheon_vec_spaces"]);
  });

  it("stores each vector as a BLOB", async () => {
    const stub = freshAgent();
    const index = openInAgent(stub, { dimensions: contractDimensions });
    await index.upsert([{ id: "m1", values: axis(0) }]);
    const type = await inAgent(
      stub,
      (sql) => sql.exec<{ t: string }>("SELECT typeof(vector) AS t FROM pantheon_vec_items").one().t,
    );
    expect(type).toBe("blob");
  });

  it("refuses to reopen a namespace with other dimensions", async () => {
    const stub = freshAgent();
    await inAgent(stub, (sql) => makeSqliteIndex(sql, { dimensions: 8, namespace: "a" }));
    await expect(inAgent(stub, (sql) => makeSqliteIndex(sql, { dimensions: 16, namespace: "a" }))).rejects.toThrow(
      "vector namespace 'a' holds 8-dimension vectors, not 16",
    );
  });

  it("rejects vectors of the wrong size, all-zero vectors and non-scalar metadata", async () => {
    const index = openInAgent(freshAgent(), { dimensions: contractDimensions });
    await expect(index.upsert([{ id: "short", values: [1, 2, 3] }])).rejects.toThrow(
      "vector 'short' has 3 dimensions, the index expects 16",
    );
    await expect(index.upsert([{ id: "zero", values: new Array(contractDimensions).fill(0) }])).rejects.toThrow(
      /all zeros/,
    );
    await expect(index.upsert([{ id: "deep", values: axis(0), metadata: { tags: ["a"] } as never }])).rejects.toThrow(
      /metadata of vector 'deep'/,
    );
    await expect(index.query([1], { topK: 1 })).rejects.toThrow(
      "the query vector has 1 dimensions, the index expects 16",
    );
  });

  it("still finds every stored vector first for itself after its lists have split many times, also after a restart", async () => {
    const stub = freshAgent();
    const options = { dimensions: contractDimensions, tuning: { maxListSize: 8, minScan: 16, scanFraction: 0.1 } };
    const records = Array.from({ length: 200 }, (_, i) => ({
      id: `v${i}`,
      values: Array.from(
        { length: contractDimensions },
        (_, j) => Math.sin((i + 1) * (j + 1) * 0.37) + (j === i % contractDimensions ? 2 : 0),
      ),
      metadata: { even: i % 2 === 0 },
    }));
    const index = openInAgent(stub, options);
    await index.upsert(records);
    const lists = await inAgent(
      stub,
      (sql) => sql.exec<{ n: number }>("SELECT count(*) AS n FROM pantheon_vec_lists").one().n,
    );
    expect(lists).toBeGreaterThan(10);
    const restarted = openInAgent(stub, options);
    for (const probe of [index, restarted]) {
      for (const record of records.filter((_, i) => i % 9 === 0)) {
        const [first] = await probe.query(record.values, { topK: 3 });
        expect(first).toMatchObject({ id: record.id, metadata: record.metadata });
      }
    }
  });

  it("answers a filtered query in full even when few vectors match the filter", async () => {
    const index = openInAgent(freshAgent(), {
      dimensions: contractDimensions,
      tuning: { maxListSize: 8, minScan: 8, scanFraction: 0.05 },
    });
    await index.upsert(
      Array.from({ length: 300 }, (_, i) => ({
        id: `v${i}`,
        values: axis(i, i + 5, (i % 7) / 10),
        metadata: { rare: i % 100 === 0 },
      })),
    );
    const matches = await index.query(axis(3), { topK: 10, filter: { rare: true } });
    expect(matches.map((m) => m.id).sort()).toEqual(["v0", "v100", "v200"]);
  });
});
