import { describe, expect, it } from "vitest";
import { extractMemories, planConsolidation, wordOverlap, type MemoryItem } from "../../core/context";
import { NOW, dayMs } from "./fixture";

function item(id: string, text: string, extra: Partial<MemoryItem> = {}): MemoryItem {
  return { id, kind: "fact", text, source: "memory", importance: 0.5, createdAt: NOW, lastUsedAt: NOW, ...extra };
}

const options = {
  similar: (a: MemoryItem, b: MemoryItem) => wordOverlap(a.text, b.text),
  now: NOW,
  threshold: 0.8,
  decayPerDay: 0,
};

describe("planConsolidation", () => {
  it("merges items that say the same thing, keeping the most important and its highest importance", () => {
    const plan = planConsolidation(
      [
        item("a", "The office wifi password is tulip42.", { importance: 0.4 }),
        item("b", "Note: the office wifi password is tulip42.", { importance: 0.7 }),
        item("c", "The office wifi password is tulip42", { importance: 0.6 }),
        item("d", "The user's dog is named Biscuit."),
      ],
      options,
    );
    expect(plan.merge).toEqual([{ keep: "b", drop: ["c", "a"], importance: 0.7 }]);
    expect(plan.supersede).toEqual([]);
  });

  it("the value that happened last wins, not the one stored last: an imported old home does not replace the current one", () => {
    const current = item("current", "The user lives in Berlin", {
      createdAt: NOW - 30 * dayMs,
      occurredAt: NOW - 30 * dayMs,
    });
    const imported = item("imported", "The user lives in Lyon", { createdAt: NOW, occurredAt: NOW - 900 * dayMs });
    const plan = planConsolidation([current, imported], options);
    expect(plan.supersede.map((s) => [s.old, s.new])).toEqual([["imported", "current"]]);
  });

  it("supersedes a fact whose value changed, newest wins, and keeps where the old one came from", () => {
    const plan = planConsolidation(
      [
        item("old", "The user lives in Lyon.", { createdAt: NOW - 90 * dayMs, source: "sessions" }),
        item("new", "The user lives in Berlin.", { createdAt: NOW - dayMs }),
        item("pw1", "The office wifi password is tulip42.", { createdAt: NOW - 30 * dayMs }),
        item("pw2", "The office wifi password is orchid7.", { createdAt: NOW - 2 * dayMs }),
      ],
      options,
    );
    expect(plan.supersede).toEqual([
      {
        old: "old",
        new: "new",
        subject: "user",
        relation: "lives in",
        previous: "Lyon",
        current: "Berlin",
        provenance: { source: "sessions", createdAt: NOW - 90 * dayMs },
      },
      {
        old: "pw1",
        new: "pw2",
        subject: "office wifi password",
        relation: "is",
        previous: "tulip42",
        current: "orchid7",
        provenance: { source: "memory", createdAt: NOW - 30 * dayMs },
      },
    ]);
    // Alike in wording, but different values: never merged.
    expect(plan.merge).toEqual([]);
  });

  it("uses a stored triple over the text when the item has one", () => {
    const plan = planConsolidation(
      [
        item("x", "Ada's employer: Acme", {
          triple: { subject: "Ada", relation: "works at", object: "Acme" },
          createdAt: NOW - 5 * dayMs,
        }),
        item("y", "Ada joined Globex", { triple: { subject: "ada", relation: "works at", object: "Globex" } }),
      ],
      options,
    );
    expect(plan.supersede.map((s) => [s.old, s.new, s.previous, s.current])).toEqual([["x", "y", "Acme", "Globex"]]);
  });

  it("merges two records of the same fact even when worded differently", () => {
    const plan = planConsolidation(
      [
        item("p", "The user's name is Ada.", { importance: 0.9 }),
        item("q", "the user's name is ada", { createdAt: NOW - dayMs }),
      ],
      { ...options, threshold: 0.99, similar: () => 0 },
    );
    expect(plan.merge).toEqual([{ keep: "p", drop: ["q"], importance: 0.9 }]);
  });

  it("decays importance by the days since last use, but not instructions, nor days before the last run", () => {
    const plan = planConsolidation(
      [
        item("stale", "The user once visited Oslo.", { importance: 0.8, lastUsedAt: NOW - 10 * dayMs }),
        item("fresh", "The user likes jazz.", { importance: 0.8, lastUsedAt: NOW }),
        item("rule", "Always answer in French.", {
          kind: "instruction",
          importance: 0.8,
          lastUsedAt: NOW - 100 * dayMs,
        }),
      ],
      { ...options, decayPerDay: 0.1 },
    );
    expect(plan.decay).toEqual([{ id: "stale", importance: Math.round(0.8 * 0.9 ** 10 * 10_000) / 10_000 }]);

    const again = planConsolidation(
      [item("stale", "The user once visited Oslo.", { importance: 0.8, lastUsedAt: NOW - 10 * dayMs })],
      {
        ...options,
        decayPerDay: 0.1,
        lastRunAt: NOW - dayMs,
      },
    );
    expect(again.decay).toEqual([{ id: "stale", importance: 0.72 }]);
  });

  it("a move the user mentions weeks later supersedes the home extracted from an earlier turn", () => {
    const stored = (id: string, user: string, daysAgo: number): MemoryItem[] =>
      extractMemories({ user }).map((m, i) => ({
        id: `${id}${i}`,
        source: "sessions",
        createdAt: NOW - daysAgo * dayMs,
        ...m,
      }));
    const items = [
      ...stored("t1-", "I live in Lyon. My dog is named Biscuit.", 60),
      ...stored("t2-", "Big news: I moved to Berlin.", 1),
    ];
    const plan = planConsolidation(items, options);
    expect(plan.supersede.map((s) => [s.old, s.new, s.previous, s.current])).toEqual([
      ["t1-0", "t2-0", "Lyon", "Berlin"],
    ]);
    expect(plan.merge).toEqual([]);
  });
});
