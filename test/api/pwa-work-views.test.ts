import { describe, expect, it } from "vitest";
import { authorName, comparePlans, openComments } from "../../pwa/src/plan-compare";
import { changesLabel, costLabel, needsOf, orderFeatures, questionLinkOf } from "../../pwa/src/work-attention";

// What the PWA's Work views decide before they draw: which features come first, how two plan
// versions line up with the comments made on the older one, what a card and a price say.

const comment = (line: number, body: string, author = "Ada", version = 1) => ({
  line,
  body,
  author,
  version,
  createdAt: 1,
});

describe("comparing two plan versions", () => {
  const v1 = ["# Plan", "", "1. Notes — write notes.md", "2. Limits — ask a person", ""].join("\n");
  const v2 = [
    "# Plan",
    "",
    "1. Notes — write docs/notes.md",
    "2. Limits — ask a person",
    "3. Docs — a README",
    "",
  ].join("\n");

  it("shows kept, removed and added lines with both line numbers", () => {
    const c = comparePlans({ markdown: v1, comments: [] }, { markdown: v2 });
    expect(c.lines.map((l) => [l.kind, l.oldLine ?? null, l.newLine ?? null])).toEqual([
      ["same", 1, 1],
      ["same", 2, 2],
      ["removed", 3, null],
      ["added", null, 3],
      ["same", 4, 4],
      ["added", null, 5],
      ["same", 5, 6],
    ]);
    expect([c.added, c.removed]).toEqual([2, 1]);
  });

  it("puts each earlier comment on the line it was made on: a changed line's as answered, a kept line's beside its new number", () => {
    const onChanged = comment(3, "Say which folder");
    const onKept = comment(4, "How many a minute?");
    const c = comparePlans({ markdown: v1, comments: [onChanged, onKept] }, { markdown: v2 });
    expect(c.lines.find((l) => l.kind === "removed")?.comments).toEqual([onChanged]);
    expect(c.lines.find((l) => l.oldLine === 4)?.comments).toEqual([onKept]);
    expect(c.addressed).toEqual([onChanged]);
    expect(c.unaddressed).toEqual([onKept]);
    expect([...c.carried.entries()]).toEqual([[4, [onKept]]]);
  });

  it("counts as open a version's own comments and the previous version's on lines it kept, not those on lines it changed", () => {
    const previous = { markdown: v1, comments: [comment(3, "Say which folder"), comment(4, "How many a minute?")] };
    expect(openComments({ markdown: v2, comments: [] }, previous).map((c) => c.body)).toEqual(["How many a minute?"]);
    expect(openComments({ markdown: v2, comments: [comment(1, "Title?", "Bo", 2)] }, null).map((c) => c.body)).toEqual([
      "Title?",
    ]);
    // Positive control: nothing open when every earlier comment's line changed and the version has none.
    expect(
      openComments({ markdown: v2, comments: [] }, { markdown: v1, comments: [comment(3, "Say which folder")] }),
    ).toEqual([]);
  });

  it("names a comment's author as a person reads it", () => {
    expect(authorName("token:h5-chat")).toBe("h5-chat");
    expect(authorName("Ada Lovelace")).toBe("Ada Lovelace");
    expect(authorName("admin")).toBe("admin");
  });
});

describe("what needs a person", () => {
  const base = {
    name: "f",
    title: "F",
    status: "in_progress",
    orchestrator: "p",
    updatedAt: 0,
    plan: { version: 1, approved: true },
    tasks: { total: 1, byStatus: { done: 1 } as Record<string, number> },
  };

  it("names a plan waiting for review, blocked tasks and questions the server counts", () => {
    expect(needsOf({ ...base, plan: { version: 2, approved: false } } as never)).toEqual(["Plan v2 waits for review"]);
    expect(
      needsOf({ ...base, tasks: { total: 3, byStatus: { blocked: 2, done: 1 } }, needsPerson: 3 } as never),
    ).toEqual(["2 tasks blocked", "1 question waiting"]);
    // A server that counts needsPerson counts failed and partial tasks too: named, not taken for questions.
    expect(
      needsOf({ ...base, tasks: { total: 2, byStatus: { partial: 1, done: 1 } }, needsPerson: 1 } as never),
    ).toEqual(["1 task failed or partial"]);
    expect(needsOf({ ...base, tasks: { total: 2, byStatus: { partial: 1, done: 1 } } } as never)).toEqual([]);
    expect(needsOf(base as never)).toEqual([]);
  });

  it("orders features that need a person first, then the newest first", () => {
    const old = { ...base, name: "old", createdAt: 1 };
    const newest = { ...base, name: "newest", createdAt: 3 };
    const waiting = { ...base, name: "waiting", createdAt: 2, tasks: { total: 1, byStatus: { blocked: 1 } } };
    expect(orderFeatures([old, newest, waiting] as never[]).map((f: { name: string }) => f.name)).toEqual([
      "waiting",
      "newest",
      "old",
    ]);
  });
});

describe("how a card and a price read", () => {
  const none = { filesChanged: 0, insertions: 0, deletions: 0, files: [] };
  it("says only what is true of a task's changes", () => {
    expect(changesLabel({ status: "partial", diff: none, overlayFiles: 1 })).toBe("1 uncommitted change");
    expect(
      changesLabel({
        status: "done",
        diff: { filesChanged: 2, insertions: 12, deletions: 3, files: [] },
        overlayFiles: 0,
      }),
    ).toBe("+12 −3 in 2 files committed");
    expect(changesLabel({ status: "in_progress", diff: none, overlayFiles: 0 })).toBe("No changes yet");
    expect(changesLabel({ status: "pending", diff: none, overlayFiles: 0 })).toBe("");
  });

  it("shows an unknown price one way, and never a zero with four decimals", () => {
    expect(costLabel(null)).toBe("not priced");
    expect(costLabel(undefined)).toBe("not priced");
    expect(costLabel(0)).toBe("$0");
    expect(costLabel(0.00042)).toBe("$0.00042");
    expect(costLabel(1.5)).toBe("$1.50");
    expect(costLabel(0.00000001)).toBe("under $0.0001");
  });

  it("shows a cost the same way in every view: three significant digits below a dollar, whole dollars without cents", () => {
    expect(costLabel(0.0225)).toBe("$0.0225");
    expect(costLabel(0.123456)).toBe("$0.123");
    expect(costLabel(1)).toBe("$1");
    expect(costLabel(123.456)).toBe("$123.46");
    expect(costLabel(Number.NaN)).toBe("not priced");
  });
});

describe("a question in the inbox", () => {
  it("links to the feature and task the server names, else the asking worker's", () => {
    expect(questionLinkOf({ agent: "x", kind: "question", feature: "login", task: 3, taskKey: "limits" })).toEqual({
      feature: "login",
      task: 3,
    });
    // The planner's question about the plan names no task: it links to the feature (and its plan).
    expect(questionLinkOf({ agent: "planner", kind: "question", feature: "login", task: null })).toEqual({
      feature: "login",
    });
    expect(questionLinkOf({ agent: "login-task-2", tool: "task.block" })).toEqual({ feature: "login", task: 2 });
    expect(questionLinkOf({ agent: "login-task-2", tool: "http.fetch" })).toBeNull();
  });
});
