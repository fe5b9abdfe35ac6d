import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentObjectName } from "../../durable-objects/stubs";
import { api, createAgent } from "../api/client";
import { preview, remember, storageOf } from "./helpers";

describe("the memory API", () => {
  it("stores a memory, finds it by a search in other words, and reads it back by id", async () => {
    const { name } = await createAgent();
    const stored = await remember(name, "The office wifi password is tulip42");
    expect(stored).toMatchObject({ kind: "fact", text: "The office wifi password is tulip42" });

    const search = await api(`/api/agents/${name}/memories?q=${encodeURIComponent("what's the wifi password?")}`);
    const { memories } = (await search.json()) as { memories: { id: string }[] };
    expect(memories[0]?.id).toBe(stored.id);

    const one = await api(`/api/agents/${name}/memories/${stored.id}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id: stored.id, source: "memory", provenance: "api" });
  });

  it("a long question finds a memory that only one of its later words matches, and ranks by every word", async () => {
    // The words are searched five to a statement: the sixth and later ones count like the first.
    const { name } = await createAgent();
    const boat = await remember(name, "The user keeps a sailboat called Marigold in Brest");
    const garden = await remember(name, "The user grows tomatoes and basil in the garden");
    const q = "tell me please honestly whatever you happen to know about marigold";
    const { memories } = (await (await api(`/api/agents/${name}/memories?q=${encodeURIComponent(q)}`)).json()) as {
      memories: { id: string }[];
    };
    expect(memories[0]?.id).toBe(boat.id);
    // Found by its word, not only by its vector: the full-text score of the late word counts.
    const view = await preview(name, q);
    expect(view.items.find((item) => item.id === boat.id)?.scores.lexical).toBeGreaterThan(0);

    const both = "which plants grow in the garden and where is the sailboat marigold and the basil";
    const ranked = (await (await api(`/api/agents/${name}/memories?q=${encodeURIComponent(both)}`)).json()) as {
      memories: { id: string }[];
    };
    expect(
      ranked.memories
        .map((m) => m.id)
        .slice(0, 2)
        .sort(),
    ).toEqual([boat.id, garden.id].sort());
  });

  it("lists memories newest first and filters them by kind", async () => {
    const { name } = await createAgent();
    await remember(name, "The user's name is Ada");
    await remember(name, "Always answer in French", { kind: "instruction" });
    const all = (await (await api(`/api/agents/${name}/memories`)).json()) as { memories: { text: string }[] };
    expect(all.memories.map((m) => m.text)).toEqual(["Always answer in French", "The user's name is Ada"]);
    const instructions = (await (await api(`/api/agents/${name}/memories?kind=instruction`)).json()) as {
      memories: { text: string }[];
    };
    expect(instructions.memories.map((m) => m.text)).toEqual(["Always answer in French"]);
  });

  it("a newer value of a fact supersedes the old one, which stays readable as history", async () => {
    const { name } = await createAgent();
    const lyon = await remember(name, "The user lives in Lyon");
    const berlin = await remember(name, "The user lives in Berlin");
    expect(berlin.superseded).toEqual([lyon.id]);
    const old = (await (await api(`/api/agents/${name}/memories/${lyon.id}`)).json()) as { supersededBy: string };
    expect(old.supersededBy).toBe(berlin.id);
    const list = (await (await api(`/api/agents/${name}/memories?q=where%20does%20the%20user%20live`)).json()) as {
      memories: { id: string }[];
    };
    expect(list.memories.map((m) => m.id)).toEqual([berlin.id]);
  });

  it("deleting a memory deletes its vector: no vector without a memory, no memory without a vector", async () => {
    const { name } = await createAgent();
    const kept = await remember(name, "The user's dog is called Biscuit");
    const gone = await remember(name, "The user's cat is called Pixel");
    const before = await storageOf(name);
    expect(before.vectors.length).toBe(2);

    const res = await api(`/api/agents/${name}/memories/${gone.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect((await api(`/api/agents/${name}/memories/${gone.id}`)).status).toBe(404);
    expect((await api(`/api/agents/${name}/memories/${gone.id}`, { method: "DELETE" })).status).toBe(404);

    const after = await storageOf(name);
    expect(after.memories).toEqual([kept.id]);
    expect(after.vectors.map((v) => v.split(".")[0])).toEqual([kept.id]);
    expect(after.bookkept).toEqual(after.vectors);
  });

  it("reports counts by kind, bytes and the embedder in use", async () => {
    const { name } = await createAgent();
    await remember(name, "The user's name is Ada");
    await remember(name, "Never share the wifi password", { kind: "instruction" });
    const status = (await (await api(`/api/agents/${name}/memories/status`)).json()) as Record<string, any>;
    expect(status.byKind).toEqual({ fact: 1, instruction: 1 });
    expect(status.bytes.text).toBe("The user's name is Ada".length + "Never share the wifi password".length);
    expect(status.embedder).toMatchObject({ model: "hashed:256", dimensions: 256, backend: "sqlite" });
    expect(status.missingVectors).toBe(0);
  });

  it("re-embedding is a no-op when every memory already has a vector of the current embedder", async () => {
    const { name } = await createAgent();
    await remember(name, "The user's name is Ada");
    const res = await api(`/api/agents/${name}/memories/reembed`, { method: "POST" });
    expect(await res.json()).toMatchObject({ model: "hashed:256", embedded: 0, dropped: 0 });
  });

  it("rejects an empty memory and names the field", async () => {
    const { name } = await createAgent();
    const res = await api(`/api/agents/${name}/memories`, { method: "POST", json: { text: "  " } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { issues: { path: string[] }[] } } };
    expect(body.error.details.issues[0]?.path).toEqual(["text"]);
  });
});

describe("embedding spaces and upkeep", () => {
  it("after an embedder change, memories are found by words only until re-embedded, then every one has a vector of the new space", async () => {
    const { name } = await createAgent();
    await remember(name, "The user's dog is called Biscuit");
    await remember(name, "The user's cat is called Pixel");
    // Pretend the vectors were made by another embedder.
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName("default", name)));
    await runInDurableObject(
      stub,
      (_i, state) => void state.storage.sql.exec("UPDATE memory_vectors SET model = 'old:model'"),
    );
    const before = (await (await api(`/api/agents/${name}/memories/status`)).json()) as { missingVectors: number };
    expect(before.missingVectors).toBe(2);

    const res = await api(`/api/agents/${name}/memories/reembed`, { method: "POST" });
    expect(await res.json()).toMatchObject({ model: "hashed:256", embedded: 2, dropped: 2 });
    const after = (await (await api(`/api/agents/${name}/memories/status`)).json()) as {
      missingVectors: number;
      vectors: { model: string }[];
    };
    expect(after.missingVectors).toBe(0);
    expect(after.vectors.map((v) => v.model)).toEqual(["hashed:256"]);
  });

  it("each turn re-arms one idle consolidation instead of piling them up", async () => {
    const { name } = await createAgent();
    await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "hello" } });
    await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "hello again" } });
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName("default", name)));
    const callbacks = await runInDurableObject(stub, (instance: { getSchedules(): { callback: string }[] }) =>
      instance.getSchedules().map((s) => s.callback),
    );
    expect(callbacks.filter((c) => c === "onMemoryIdle")).toHaveLength(1);
  });

  it("an idle alarm that fires while the agent is still talking moves itself instead of consolidating", async () => {
    const { name } = await createAgent();
    await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "hello" } });
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName("default", name)));
    type Instance = {
      getSchedules(): { id: string; callback: string; time: number }[];
      cancelSchedule(id: string): Promise<boolean>;
      onMemoryIdle(): Promise<void>;
    };
    // What the alarm does: the SDK drops the one-shot schedule and calls back.
    const fire = (instance: Instance) =>
      Promise.all(
        instance
          .getSchedules()
          .filter((s) => s.callback === "onMemoryIdle")
          .map((s) => instance.cancelSchedule(s.id)),
      ).then(() => instance.onMemoryIdle());
    const consolidatedAt = (sql: SqlStorage) =>
      sql.exec("SELECT value FROM settings WHERE key = 'memory.consolidatedAt'").toArray().length;

    const early = await runInDurableObject(stub, async (instance: Instance, state) => {
      await fire(instance);
      return {
        idle: instance.getSchedules().filter((s) => s.callback === "onMemoryIdle"),
        consolidated: consolidatedAt(state.storage.sql),
      };
    });
    expect(early.consolidated).toBe(0);
    expect(early.idle).toHaveLength(1);
    // Moved to 15 minutes after the last message, not dropped and not fired again at once.
    expect(early.idle[0]!.time * 1000).toBeGreaterThan(Date.now() + 14 * 60_000);

    const late = await runInDurableObject(stub, async (instance: Instance, state) => {
      state.storage.sql.exec("UPDATE messages SET created_at = created_at - ?", 16 * 60_000);
      await fire(instance);
      return {
        idle: instance.getSchedules().filter((s) => s.callback === "onMemoryIdle"),
        consolidated: consolidatedAt(state.storage.sql),
      };
    });
    expect(late.consolidated).toBe(1);
    expect(late.idle).toHaveLength(0);
  });
});
