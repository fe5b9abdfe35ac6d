import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { describe, expect, it } from "vitest";
import { goalsOf, type AgentProfile } from "../../core/agents";
import migrations from "../../migrations/registry/migrations.js";
import type { RegistryDO } from "../../durable-objects/registry/registry-do";
import * as schema from "../../durable-objects/registry/schema";
import { agentStub } from "../../durable-objects/stubs";
import { uniqueName } from "../api/client";
import { tenant } from "../secrets/helpers";

const repair = migrations.journal.entries.find((e) => e.tag === "0008_repair_json_strings")!;
/** The registry's migrations up to the repair: later ones (their tables already made here) are not the subject. */
const upToRepair = {
  ...migrations,
  journal: { ...migrations.journal, entries: migrations.journal.entries.filter((e) => e.idx <= repair.idx) },
};

/** A row as the code before migration 0008 wrote it: every json column given as raw text. */
function insertOldRow(sql: SqlStorage, name: string, goals: string, runtime = '{"tools":["clock.now"]}') {
  sql.exec(
    `INSERT INTO agents (name, description, system_prompt, model, runtime, connections, goals, created_at, updated_at)
     VALUES (?, '', 'You are old.', '{"provider":"offline","name":"offline"}', ?, '[]', ?, 1, 1)`,
    name,
    runtime,
    goals,
  );
}

describe("stored goals repaired (registry migration 0008)", () => {
  it("turns the JSON string '\"[]\"' a project import or restore stored into a list, and leaves real lists as they are", async () => {
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName(uniqueName("repair"))) as DurableObjectStub<RegistryDO>;
    await runInDurableObject(registry, async (instance: RegistryDO, state) => {
      const sql = state.storage.sql;
      // The database as the old code left it: migrations up to 0007 applied, rows in the old shapes.
      sql.exec("DELETE FROM __drizzle_migrations WHERE created_at >= ?", repair.when);
      insertOldRow(sql, "imported", JSON.stringify("[]"));
      insertOldRow(sql, "listed", JSON.stringify(JSON.stringify(["Ship it"])));
      insertOldRow(sql, "kept", JSON.stringify(["Review PR #123"]));
      insertOldRow(sql, "garbled", "not json");
      insertOldRow(sql, "stringly", JSON.stringify("[]"), JSON.stringify('{"tools":["clock.now"]}'));
      const stored = () =>
        Object.fromEntries(
          sql
            .exec<{ name: string; goals: string; runtime: string }>("SELECT name, goals, runtime FROM agents")
            .toArray()
            .map((r) => [r.name, { goals: r.goals, runtime: r.runtime }]),
        );
      expect(stored().imported!.goals).toBe('"[]"');

      await migrate(drizzle(state.storage, { schema }), upToRepair);

      const after = stored();
      expect(after.imported!.goals).toBe("[]");
      expect(JSON.parse(after.listed!.goals)).toEqual(["Ship it"]);
      expect(JSON.parse(after.kept!.goals)).toEqual(["Review PR #123"]);
      expect(after.garbled!.goals).toBe("[]");
      expect(JSON.parse(after.stringly!.runtime)).toEqual({ tools: ["clock.now"] });
      // The migration is recorded: a second start does not run it again.
      await migrate(drizzle(state.storage, { schema }), upToRepair);
      const listed = instance.listAgents();
      expect(Object.fromEntries(listed.map((a) => [a.name, a.goals]))).toEqual({
        imported: [],
        listed: ["Ship it"],
        kept: ["Review PR #123"],
        garbled: [],
        stringly: [],
      });
    });
  });

  it("a row still holding the old string reads as a list before any migration (positive control: a real list)", async () => {
    const registry = env.REGISTRY.get(
      env.REGISTRY.idFromName(uniqueName("unrepaired")),
    ) as DurableObjectStub<RegistryDO>;
    await runInDurableObject(registry, async (instance: RegistryDO, state) => {
      insertOldRow(state.storage.sql, "stale", JSON.stringify("[]"));
      insertOldRow(state.storage.sql, "fine", JSON.stringify(["Ship it"]));
      const read = Object.fromEntries(instance.listAgents().map((a) => [a.name, a.goals]));
      expect(read).toEqual({ stale: [], fine: ["Ship it"] });
    });
    expect(goalsOf('"[]"')).toEqual([]);
    expect(goalsOf("[]")).toEqual([]);
    expect(goalsOf(["a", 3, ""])).toEqual(["a"]);
  });

  it("an agent whose own copy of its profile holds goals as the string '\"[]\"' still answers", async () => {
    const t = await tenant("stale-copy");
    expect((await t.call("/api/agents", { method: "POST", json: { name: "old" } })).status).toBe(201);
    const profile = (await (await t.call("/api/agents/old")).json()) as AgentProfile;
    const stub = await agentStub(env, t.slug, "old");
    await stub.configure({ ...profile, goals: "[]" as unknown as string[] });
    const sent = await t.call("/api/agents/old/messages", { method: "POST", json: { content: "still there?" } });
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as { status: string }).status).toBe("completed");
  });
});
