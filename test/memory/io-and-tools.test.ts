import { env as testEnv } from "cloudflare:test";

const doubleUrl = (testEnv as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;
import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";
import { remember, say, storageOf } from "./helpers";

const ndjson = { "content-type": "application/x-ndjson" };

describe("export and import", () => {
  it("an export imported into a fresh agent exports the same lines, history included", async () => {
    const { name } = await createAgent();
    await remember(name, "The user lives in Lyon");
    await remember(name, "The user lives in Berlin");
    await remember(name, "Always answer in French", { kind: "instruction", importance: 0.9 });
    const exported = await (await api(`/api/agents/${name}/memories/export`)).text();
    expect(exported.trim().split("\n")).toHaveLength(3);

    const { name: copy } = await createAgent();
    const res = await api(`/api/agents/${copy}/memories/import`, { method: "POST", headers: ndjson, body: exported });
    expect(await res.json()).toMatchObject({ imported: 3, errors: [] });
    expect(await (await api(`/api/agents/${copy}/memories/export`)).text()).toBe(exported);
    const storage = await storageOf(copy);
    expect(storage.vectors).toHaveLength(2);
  });

  it("keeps the good lines and reports each bad one by its line number", async () => {
    const { name } = await createAgent();
    const body = [
      JSON.stringify({ kind: "fact", text: "The user likes green tea" }),
      "{not json",
      JSON.stringify({ kind: "opinion", text: "x" }),
      "",
      JSON.stringify({ id: "dup1", kind: "fact", text: "The user's cat is Pixel" }),
      JSON.stringify({ id: "dup1", kind: "fact", text: "The user's cat is Pixel" }),
    ].join("\n");
    const res = await api(`/api/agents/${name}/memories/import`, { method: "POST", headers: ndjson, body });
    const report = (await res.json()) as { imported: number; errors: { line: number; message: string }[] };
    expect(report.imported).toBe(2);
    expect(report.errors.map((e) => e.line)).toEqual([2, 3, 6]);
    expect(report.errors[2]!.message).toContain("already exists");
  });

  it("asks for the JSON lines media type", async () => {
    const { name } = await createAgent();
    const res = await api(`/api/agents/${name}/memories/import`, { method: "POST", json: { kind: "fact", text: "x" } });
    expect(res.status).toBe(415);
  });
});

describe("memory from conversation", () => {
  it("the offline model stores, searches and forgets memories through the memory tools", async () => {
    const { name } = await createAgent();
    const stored = await say(name, '/tool memory.store {"text":"The spare key is under the blue flower pot"}');
    expect(stored.reply?.content).toContain("memory.store");
    const { memories } = (await (await api(`/api/agents/${name}/memories`)).json()) as {
      memories: { id: string; text: string; provenance: string }[];
    };
    expect(memories).toHaveLength(1);
    expect(memories[0]).toMatchObject({
      text: "The spare key is under the blue flower pot",
      provenance: "tool:memory.store",
    });

    const found = await say(name, '/tool memory.search {"query":"where is the spare key?"}');
    expect(found.reply?.content).toContain(memories[0]!.id);

    await say(name, `/tool memory.forget {"id":"${memories[0]!.id}"}`);
    const after = (await (await api(`/api/agents/${name}/memories`)).json()) as { memories: unknown[] };
    expect(after.memories).toHaveLength(0);
    expect((await storageOf(name)).vectors).toEqual([]);
  });

  it("every agent declares the memory tools", async () => {
    const { name } = await createAgent({ runtime: { tools: [] } });
    const turn = await say(name, "/tools");
    for (const tool of ["memory.store", "memory.search", "memory.forget"]) expect(turn.reply?.content).toContain(tool);
  });

  it("after a turn, what the user stated becomes memory, and a changed fact replaces the old one", async () => {
    const { name } = await createAgent();
    await say(name, "Hi! My name is Ada. I live in Lyon.");
    await say(name, "Big news: I moved to Berlin.");
    const { memories } = (await (await api(`/api/agents/${name}/memories`)).json()) as {
      memories: { text: string; provenance: string }[];
    };
    const texts = memories.map((m) => m.text);
    expect(texts).toContain("The user's name is Ada");
    expect(texts).toContain("The user lives in Berlin");
    expect(texts).not.toContain("The user lives in Lyon");
    expect(memories.every((m) => m.provenance.startsWith("turn:"))).toBe(true);
  });

  it("with a real provider the model proposes the memories of the waiting turns as JSON, in one call when the agent goes idle", async () => {
    const model = `memory-extract-${Date.now()}`;
    const proposal = {
      memories: [{ kind: "fact", text: "The user owns a sailboat named Tern", importance: 0.7, entities: ["Tern"] }],
    };
    // The double answers extraction requests (recognised by their prompt) from their own queue.
    await fetch(`${doubleUrl}/__script/${model}`, {
      method: "POST",
      body: JSON.stringify([{ content: "What a lovely boat!" }]),
    });
    await fetch(`${doubleUrl}/__script/${model}:extraction`, {
      method: "POST",
      body: JSON.stringify([{ content: JSON.stringify(proposal) }]),
    });
    const { name } = await createAgent({ model: { provider: "openai", name: model } });
    await say(name, "I finally bought the boat I wanted.");
    // With a model, extraction waits for a batch of turns or for the idle upkeep (run here by hand).
    expect(await (await fetch(`${doubleUrl}/__calls/${model}:extraction`)).json()).toHaveLength(0);
    expect((await api(`/api/agents/${name}/memories/consolidate`, { method: "POST" })).status).toBe(200);
    let memories: { text: string; entities: string[]; provenance: string }[] = [];
    for (let i = 0; i < 200 && memories.length === 0; i++) {
      ({ memories } = (await (await api(`/api/agents/${name}/memories`)).json()) as { memories: typeof memories });
      if (memories.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(memories).toEqual([
      expect.objectContaining({ text: "The user owns a sailboat named Tern", entities: ["Tern"] }),
    ]);
    expect(memories[0]!.provenance).toMatch(/^turn:/);
    const calls = (await (await fetch(`${doubleUrl}/__calls/${model}:extraction`)).json()) as {
      messages: { content: string }[];
    }[];
    expect(calls).toHaveLength(1);
    expect(calls[0]!.messages[1]!.content).toBe(
      "User: I finally bought the boat I wanted.\nAssistant: What a lovely boat!",
    );
  });

  it("consolidation merges near-duplicates into one memory and keeps the copy as history", async () => {
    const { name } = await createAgent();
    const lines = [
      { id: "a1", kind: "fact", text: "The team standup is at nine every weekday morning", importance: 0.4 },
      { id: "a2", kind: "fact", text: "The team standup is at nine every weekday morning.", importance: 0.8 },
      { id: "b1", kind: "fact", text: "The user's favourite author is Ursula Le Guin", importance: 0.5 },
    ];
    await api(`/api/agents/${name}/memories/import`, {
      method: "POST",
      headers: ndjson,
      body: lines.map((l) => JSON.stringify(l)).join("\n"),
    });
    const result = await (await api(`/api/agents/${name}/memories/consolidate`, { method: "POST" })).json();
    expect(result).toMatchObject({ merged: 1 });
    const { memories } = (await (await api(`/api/agents/${name}/memories`)).json()) as {
      memories: { id: string; importance: number }[];
    };
    expect(memories.map((m) => m.id).sort()).toEqual(["a2", "b1"]);
    const merged = (await (await api(`/api/agents/${name}/memories/a1`)).json()) as { supersededBy: string };
    expect(merged.supersededBy).toBe("a2");
    const again = await (await api(`/api/agents/${name}/memories/consolidate`, { method: "POST" })).json();
    expect(again).toMatchObject({ merged: 0, superseded: 0 });
  });
});
