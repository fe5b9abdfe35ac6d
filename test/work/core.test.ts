import { describe, expect, it } from "vitest";
import {
  buildTaskSpec,
  checkPath,
  diffStats,
  parsePlanTasks,
  resolveFeature,
  rollUp,
  specBudgets,
  syncTasks,
  unifiedDiff,
  authorizeWork,
  assertTaskMove,
} from "../../core/work";

const plan = `# Login page

Some intro.

## Tasks

1. **Schema** — add the users table
   with an index on email
2. API: the login route
- [ ] Form

## Notes
- not a task
`;

describe("a plan's task list", () => {
  it("reads numbered, bulleted and checkbox items under the Tasks heading, with their lines and descriptions", () => {
    const { tasks, problems } = parsePlanTasks(plan);
    expect(problems).toEqual([]);
    expect(tasks).toEqual([
      {
        key: "schema",
        name: "Schema",
        description: "add the users table\nwith an index on email",
        line: 7,
        dependsOn: [],
      },
      { key: "api", name: "API", description: "the login route", line: 9, dependsOn: [] },
      { key: "form", name: "Form", description: "", line: 10, dependsOn: [] },
    ]);
  });

  it("refuses a plan without a Tasks section, and a task listed twice, naming the line", () => {
    expect(parsePlanTasks("# Plan\n- a\n").problems[0]!.message).toMatch(/no '## Tasks' section/);
    const twice = parsePlanTasks("## Tasks\n1. Build\n2. Build\n");
    expect(twice.problems).toEqual([
      { path: ["markdown", "line 3"], message: "task 'Build' is listed twice: task names must differ" },
    ]);
  });
});

describe("syncing tasks from a new plan", () => {
  const existing = [
    {
      number: 1,
      key: "schema",
      name: "Schema",
      description: "add the users table",
      status: "done" as const,
      summary: "table added",
    },
    { number: 2, key: "api", name: "API", description: "the route", status: "in_progress" as const, summary: null },
    { number: 3, key: "old", name: "Old", description: "", status: "pending" as const, summary: null },
  ];

  it("keeps the status of unchanged tasks, adds new ones, resets changed ones and removes orphans", () => {
    const sync = syncTasks(existing, [
      { key: "schema", name: "Schema", description: "add the users table", line: 1, dependsOn: [] },
      { key: "form", name: "Form", description: "", line: 2, dependsOn: [] },
      { key: "api", name: "API", description: "the route, with rate limits", line: 3, dependsOn: [] },
    ]);
    expect(sync.tasks.map((t) => [t.number, t.key, t.status, t.summary])).toEqual([
      [1, "schema", "done", "table added"],
      [2, "form", "pending", null],
      // It changed, but it is running: it keeps running rather than being pulled from its worker.
      [3, "api", "in_progress", null],
    ]);
    expect(sync).toMatchObject({
      added: ["form"],
      changed: ["api"],
      kept: ["schema"],
      removed: [{ key: "old", number: 3, status: "pending" }],
    });
  });

  it("sends a done task whose description changed back to pending", () => {
    const sync = syncTasks(existing.slice(0, 1), [
      { key: "schema", name: "Schema", description: "add the users and roles tables", line: 1, dependsOn: [] },
    ]);
    expect(sync.tasks[0]).toMatchObject({ status: "pending", summary: null });
  });
});

describe("a task's spec", () => {
  const tasks = Array.from({ length: 14 }, (_, i) => ({
    number: i + 1,
    name: `Task ${i + 1}`,
    status: i < 12 ? ("done" as const) : ("pending" as const),
    summary: i === 11 ? "x".repeat(2_500) : `did ${i + 1}`,
  }));

  it("holds the task, its feature, prior tasks with summaries, upcoming tasks and context files", () => {
    const spec = buildTaskSpec({
      feature: { name: "login", title: "Login page" },
      task: { number: 13, name: "Task 13", description: "wire it up" },
      tasks,
      contextFiles: [{ path: "context/brief.md", content: "The brief." }],
    });
    expect(spec.task).toEqual({ number: 13, name: "Task 13", description: "wire it up" });
    expect(spec.prior.map((t) => t.number)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(spec.upcoming).toEqual([{ number: 14, name: "Task 14" }]);
    expect(spec.prompt).toContain("# Task 13: Task 13");
    expect(spec.prompt).toContain("Feature: Login page (login)");
    expect(spec.prompt).toContain("wire it up");
    expect(spec.prompt).toContain("The brief.");
    expect(spec.warnings).toEqual([
      "the summary of task 12 is 2,500 characters: cut to 2,000",
      "2 earlier task(s) left out: only the last 10 are listed",
    ]);
  });

  it("cuts a context file over 20 KB and stops at 60 KB in all, reporting every cut", () => {
    const big = "a".repeat(30 * 1024);
    const spec = buildTaskSpec({
      feature: { name: "f", title: "F" },
      task: { number: 1, name: "One", description: "" },
      tasks: [{ number: 1, name: "One", status: "pending", summary: null }],
      contextFiles: [1, 2, 3, 4].map((n) => ({ path: `context/${n}.txt`, content: big })),
    });
    expect(spec.sizes.promptBytes).toBeLessThanOrEqual(specBudgets.totalBytes);
    expect(spec.contextFiles[0]).toEqual({ path: "context/1.txt", bytes: 30 * 1024, includedBytes: 20 * 1024 });
    expect(spec.contextFiles[3]).toEqual({ path: "context/4.txt", bytes: 30 * 1024, includedBytes: 0 });
    expect(spec.warnings.filter((w) => /cut to 20,480/.test(w))).toHaveLength(3);
    expect(
      spec.warnings.some((w) => /context\/3\.txt cut to .* bytes: the spec reached its 61,440-byte budget/.test(w)),
    ).toBe(true);
    expect(spec.warnings.some((w) => /context\/4\.txt \(30,720 bytes\) left out/.test(w))).toBe(true);
  });
});

describe("workspace paths, conflicts and diffs", () => {
  it("accepts relative paths and refuses escapes, absolute paths and control characters", () => {
    expect(checkPath("src/app.ts")).toBe("src/app.ts");
    expect(checkPath("./docs/a.md")).toBe("docs/a.md");
    for (const bad of [
      "../etc/passwd",
      "/etc/passwd",
      "a/../../b",
      "a//b",
      "a\\b",
      "a\u0000b",
      "",
      "x/".repeat(40) + "y",
    ]) {
      expect(() => checkPath(bad), bad).toThrow(/not a valid workspace path/);
    }
  });

  it("counts files, insertions and deletions with jsdiff, and writes a unified diff", () => {
    const committed = new Map([
      ["a.ts", "one\ntwo\nthree\n"],
      ["gone.ts", "x\ny\n"],
    ]);
    const overlay = [
      { path: "a.ts", content: "one\n2\nthree\nfour\n", baseVersion: 1 },
      { path: "new.ts", content: "hello\n", baseVersion: 0 },
      { path: "gone.ts", content: null, baseVersion: 1 },
    ];
    expect(diffStats(overlay, committed)).toEqual({
      filesChanged: 3,
      insertions: 3,
      deletions: 3,
      files: [
        { path: "a.ts", change: "modified", insertions: 2, deletions: 1 },
        { path: "gone.ts", change: "deleted", insertions: 0, deletions: 2 },
        { path: "new.ts", change: "added", insertions: 1, deletions: 0 },
      ],
    });
    const patch = unifiedDiff(overlay, committed);
    expect(patch).toContain("--- a/a.ts\n+++ b/a.ts");
    expect(patch).toContain("-two\n+2");
    expect(patch).toContain("--- /dev/null\n+++ b/new.ts");
  });
});

describe("who may do what", () => {
  const parties = { orchestrator: "planner", worker: "f-task-1" };
  it("lets the orchestrator plan, the worker report, and a person with the approve scope approve", () => {
    expect(() => authorizeWork("plan.write", { kind: "agent", name: "planner" }, parties)).not.toThrow();
    expect(() => authorizeWork("task.report", { kind: "agent", name: "f-task-1" }, parties)).not.toThrow();
    expect(() =>
      authorizeWork("plan.approve", { kind: "person", id: "token:ops", scope: "approve" }, parties),
    ).not.toThrow();
  });
  it("refuses everyone else, saying who may", () => {
    expect(() => authorizeWork("plan.write", { kind: "agent", name: "f-task-1" }, parties)).toThrow(
      "only the orchestrating agent 'planner' writes the plan; agent 'f-task-1' may not",
    );
    expect(() => authorizeWork("plan.write", { kind: "person", id: "admin", scope: "admin" }, parties)).toThrow(
      /only the orchestrating agent/,
    );
    expect(() => authorizeWork("tasks.sync", { kind: "agent", name: "other" }, parties)).toThrow(/syncs tasks/);
    expect(() => authorizeWork("plan.approve", { kind: "agent", name: "planner" }, parties)).toThrow(
      /only a person with a token of scope approve/,
    );
    expect(() => authorizeWork("plan.approve", { kind: "person", id: "token:c", scope: "chat" }, parties)).toThrow(
      /token:c \(chat token\) may not/,
    );
    expect(() => authorizeWork("task.answer", { kind: "agent", name: "f-task-1" }, parties)).toThrow(
      /answers a blocked task/,
    );
    expect(() => authorizeWork("task.report", { kind: "agent", name: "f-task-2" }, parties)).toThrow(
      /only the task's worker 'f-task-1'/,
    );
    expect(() => authorizeWork("task.report", { kind: "agent", name: "planner" }, parties)).toThrow(
      /only the task's worker/,
    );
  });
  it("moves tasks only along the design's states", () => {
    expect(() => assertTaskMove({ number: 1, status: "pending" }, "done")).toThrow(
      "task 1 is pending and cannot become done (it can become: in_progress, cancelled)",
    );
    expect(() => assertTaskMove({ number: 1, status: "done" }, "in_progress")).toThrow(/it is final/);
    expect(() => assertTaskMove({ number: 1, status: "blocked" }, "in_progress")).not.toThrow();
  });
});

describe("feature resolution", () => {
  it("takes the named feature, else the run's own, else the only one", () => {
    expect(resolveFeature({ explicit: "b", own: "a", all: ["a", "b"] })).toBe("b");
    expect(resolveFeature({ own: "a", all: ["a", "b"] })).toBe("a");
    expect(resolveFeature({ all: ["only"] })).toBe("only");
  });
  it("lists the candidates when it cannot tell", () => {
    expect(() => resolveFeature({ all: ["a", "b"] })).toThrow("several features exist; name one with 'feature': a, b");
    expect(() => resolveFeature({ explicit: "c", all: ["a", "b"] })).toThrow(
      "feature 'c' does not exist (features: a, b)",
    );
    expect(() => resolveFeature({ all: [] })).toThrow(/no features yet/);
  });
});

describe("reports", () => {
  it("rolls tasks up, counting a file once however many tasks touched it", () => {
    const diff = (paths: string[], ins: number) => ({
      filesChanged: paths.length,
      insertions: ins,
      deletions: 0,
      files: paths.map((path) => ({ path, change: "added" as const, insertions: ins, deletions: 0 })),
    });
    const report = rollUp({ name: "f", status: "done" }, [
      {
        number: 1,
        key: "a",
        name: "A",
        status: "done",
        summary: "a",
        question: null,
        answer: null,
        answeredBy: null,
        commits: [],
        startedAt: 1,
        completedAt: 2,
        diff: diff(["x.ts"], 3),
        runs: [],
        tokens: { input: 10, output: 5 },
        costUsd: 0.5,
      },
      {
        number: 2,
        key: "b",
        name: "B",
        status: "done",
        summary: "b",
        question: null,
        answer: null,
        answeredBy: null,
        commits: [],
        startedAt: 3,
        completedAt: 4,
        diff: diff(["x.ts", "y.ts"], 2),
        runs: [],
        tokens: { input: 1, output: 1 },
        costUsd: null,
      },
    ]);
    expect(report).toMatchObject({
      byStatus: { done: 2 },
      diff: { filesChanged: 2, insertions: 5, files: ["x.ts", "y.ts"] },
      tokens: { input: 11, output: 6 },
      costUsd: null,
    });
  });
});
