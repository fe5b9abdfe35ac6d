import { describe, expect, it } from "vitest";
import fixture from "./retrieval-fixture.json";
import { api, createAgent } from "../api/client";
import { preview, remember, say } from "./helpers";

async function agentWithFixture() {
  const { name } = await createAgent();
  const ids = new Map<string, string>();
  for (const fact of fixture.facts) ids.set(fact.id, (await remember(name, fact.text)).id);
  return { name, ids };
}

describe("the context preview", () => {
  it("finds the fact each paraphrased question asks about, and the model is shown it", async () => {
    const { name, ids } = await agentWithFixture();
    for (const question of fixture.questions) {
      const view = await preview(name, question.text);
      const wanted = ids.get(question.fact)!;
      const item = view.items.find((i) => i.id === wanted);
      expect(item, question.text).toBeDefined();
      expect(item!.included, question.text).toBe(true);
      const top3 = view.items
        .filter((i) => i.included)
        .slice(0, 3)
        .map((i) => i.id);
      expect(top3, question.text).toContain(wanted);
      const memoryBlock = view.messages.find((m) => m.role === "system" && m.content.startsWith("Relevant memory:"));
      expect(memoryBlock?.content).toContain(fixture.facts.find((f) => f.id === question.fact)!.text);
    }
  });

  it("shows every candidate with its source, scores and why it is in or out, and the user message last", async () => {
    const { name } = await agentWithFixture();
    const view = await preview(name, "What is the name of my dog?");
    expect(view.messages[0]).toEqual({
      role: "system",
      content: "You are a test agent. The launch code word is pineapple.",
    });
    expect(view.messages.at(-1)).toEqual({ role: "user", content: "What is the name of my dog?" });
    for (const item of view.items) {
      expect(item.source).toBe("memory");
      expect(Object.keys(item.scores).sort()).toEqual([
        "final",
        "fused",
        "importance",
        "lexical",
        "period",
        "recency",
        "semantic",
      ]);
      expect(typeof item.reason.detail).toBe("string");
    }
    expect(view.sources).toEqual(["memory"]);
  });

  it("never exceeds the token budget, however small, and says what did not fit", async () => {
    const { name } = await agentWithFixture();
    for (let i = 0; i < 6; i++) await say(name, `Tell me something about topic number ${i} please, in detail.`);
    for (const maxTokens of [60, 120, 250, 500, 8000]) {
      const view = await preview(name, "What is my dog called and what car do I drive?", `&maxTokens=${maxTokens}`);
      expect(view.tokens.used).toBeLessThanOrEqual(view.tokens.budget);
      if (maxTokens <= 120) expect(view.items.some((i) => i.reason.code === "over_budget")).toBe(true);
    }
  });

  it("asked about the latest, ranks a recent memory above an old one that matches as well; asked plainly, a relevant old memory stays above an irrelevant recent one", async () => {
    const { name } = await createAgent();
    const day = 86_400_000;
    const now = Date.now();
    const lines = [
      {
        id: "oldTrip",
        kind: "episode",
        text: "The user booked a trip to Rome",
        createdAt: now - 400 * day,
        importance: 0.5,
      },
      { id: "newTrip", kind: "episode", text: "The user booked a trip to Oslo", createdAt: now - day, importance: 0.5 },
      {
        id: "newNoise",
        kind: "fact",
        text: "The printer on floor two is out of toner",
        createdAt: now,
        importance: 0.5,
      },
    ];
    const res = await api(`/api/agents/${name}/memories/import`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: lines.map((l) => JSON.stringify(l)).join("\n"),
    });
    expect(res.status).toBe(200);
    const latest = await preview(name, "Which trip did the user book recently?");
    const order = latest.items.filter((i) => i.included).map((i) => i.id);
    expect(order.indexOf("newTrip")).toBeLessThan(order.indexOf("oldTrip"));
    const final = (view: typeof latest, id: string) => view.items.find((i) => i.id === id)?.scores.final ?? 0;
    expect(final(latest, "newTrip")).toBeGreaterThan(final(latest, "oldTrip"));
    const plain = await preview(name, "Which trip did the user book?");
    expect(final(plain, "oldTrip")).toBeGreaterThan(final(plain, "newNoise"));
  });

  it("answers a chat turn from memory: the offline model quotes the remembered fact", async () => {
    const { name } = await agentWithFixture();
    const turn = await say(name, "What is the office wifi password?");
    expect(turn.reply?.content).toContain("tulip42");
  });

  it("marks the memories a turn used with the time they were used", async () => {
    const { name, ids } = await agentWithFixture();
    const before = (await (await api(`/api/agents/${name}/memories/${ids.get("wifi")}`)).json()) as {
      lastUsedAt?: number;
    };
    expect(before.lastUsedAt).toBeUndefined();
    await say(name, "What is the office wifi password?");
    const after = (await (await api(`/api/agents/${name}/memories/${ids.get("wifi")}`)).json()) as {
      lastUsedAt?: number;
    };
    expect(after.lastUsedAt).toBeGreaterThan(0);
  });
});

describe("k on GET /context", () => {
  async function agentWith40Matches() {
    const { name } = await createAgent();
    const now = Date.now();
    // Forty memories that all match, none a near-duplicate of another (each has its own words).
    const plants =
      "tulips roses basil mint tomatoes carrots leeks onions garlic peas beans kale chard lettuce radish beets squash melons peppers chilies sage thyme parsley dill fennel lavender dahlias irises lilies peonies asters ferns hostas heather clover poppies daisies violets pansies crocus".split(
        " ",
      );
    const places = "fence shed pond gate wall hedge path oak well porch".split(" ");
    const moods = "sunny rainy windy misty frosty cloudy humid stormy calm bright".split(" ");
    const lines = plants.map((plant, i) => ({
      id: `garden${i}`,
      kind: "episode",
      text: `${plant} ${places[i % 10]} ${moods[Math.floor(i / 4) % 10]} garden ${i}: the user planted ${plant}`,
      createdAt: now - i * 60_000,
    }));
    const res = await api(`/api/agents/${name}/memories/import`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: lines.map((l) => JSON.stringify(l)).join("\n"),
    });
    expect(res.status).toBe(200);
    return name;
  }
  const included = (view: Awaited<ReturnType<typeof preview>>) =>
    view.items.filter((i) => i.included && i.source === "memory");

  it("includes as many ranked memories as k asks, past the default 12, and says which fell past k", async () => {
    const name = await agentWith40Matches();
    const plain = await preview(name, "What did the user plant in the garden?");
    expect(included(plain)).toHaveLength(12);
    const wide = await preview(name, "What did the user plant in the garden?", "&k=30");
    expect(included(wide)).toHaveLength(30);
    // k widens the ranking: what the default showed is still in it.
    expect(included(wide).map((i) => i.id)).toEqual(expect.arrayContaining(included(plain).map((i) => i.id)));
    const narrow = await preview(name, "What did the user plant in the garden?", "&k=3");
    expect(included(narrow)).toHaveLength(3);
    expect(narrow.items.filter((i) => i.reason.code === "over_item_limit").length).toBeGreaterThan(0);
    expect(narrow.items.find((i) => i.reason.code === "over_item_limit")!.reason.detail).toContain("limit of 3 items");
  });

  it("k stays within the token budget: a small budget includes fewer than k and marks the rest over_budget", async () => {
    const name = await agentWith40Matches();
    const view = await preview(name, "What did the user plant in the garden?", "&k=40&maxTokens=300");
    expect(view.tokens.used).toBeLessThanOrEqual(view.tokens.budget);
    expect(included(view).length).toBeLessThan(40);
    expect(view.items.some((i) => i.reason.code === "over_budget")).toBe(true);
  });

  it("a k that is not a whole number from 1 to 100 is a 400 naming k", async () => {
    const name = await agentWith40Matches();
    for (const k of ["0", "101", "2.5", "ten", "-1"]) {
      const res = await api(`/api/agents/${name}/context?q=garden&k=${k}`);
      expect(res.status, k).toBe(400);
      const body = (await res.json()) as { error: { message: string } };
      expect(JSON.stringify(body), k).toMatch(/\bk\b/);
    }
    expect((await api(`/api/agents/${name}/context?q=garden&k=100`)).status).toBe(200);
  });
});

describe("the rolling summary", () => {
  it("folds turns that leave the window into a summary the model still sees, and the turn still succeeds", async () => {
    const { name } = await createAgent({ runtime: { limits: { maxHistory: 4 } } });
    const first = await say(name, "My project is called Heliotrope and it ships in March.");
    for (let i = 0; i < 5; i++)
      expect((await say(name, `Filler question number ${i}?`, first.sessionId)).status).toBe("completed");
    const view = await preview(name, "What is my project called?", `&session=${first.sessionId}`);
    expect(view.summary).toContain("Heliotrope");
    const summaryMessage = view.messages.find((m) => m.content.startsWith("Summary of the earlier conversation:"));
    expect(summaryMessage?.content).toContain("Heliotrope");
    // Folded turns are not sent verbatim any more: at most the window of recent messages remains.
    const verbatim = view.messages.filter((m) => m.role === "user" || m.role === "assistant");
    expect(verbatim.length).toBeLessThanOrEqual(4 + 1);
    expect(verbatim.some((m) => m.content === "My project is called Heliotrope and it ships in March.")).toBe(false);
    const summaries = (await (await api(`/api/agents/${name}/memories?kind=summary`)).json()) as {
      memories: { text: string }[];
    };
    expect(summaries.memories).toHaveLength(1);
  });

  it("folds what a tight budget squeezes out instead of failing", async () => {
    const { name } = await createAgent();
    const first = await say(name, "Remember that the launch is on the ninth of May. ".repeat(3));
    for (let i = 0; i < 4; i++)
      await say(name, `Another long message ${i}: ${"lorem ipsum dolor sit amet ".repeat(12)}`, first.sessionId);
    const view = await preview(name, "When is the launch?", `&session=${first.sessionId}&maxTokens=400`);
    expect(view.tokens.used).toBeLessThanOrEqual(view.tokens.budget);
    expect(view.folded).toBeGreaterThan(0);
    expect(view.summary).toBeTruthy();
  });
});
