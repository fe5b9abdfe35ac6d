import { describe, expect, it } from "vitest";
import {
  analyzePlan,
  authorizeWork,
  featureReportMarkdown,
  nextStep,
  parsePlanTasks,
  pricedRun,
  rollUp,
} from "../../core/work";

describe("declared dependencies in a plan", () => {
  it("reads `depends on N` in its forms as the keys of the tasks waited for", () => {
    const { tasks, problems } = parsePlanTasks(
      "## Tasks\n1. Schema\n2. API — depends on 1\n3. UI — the page (depends on tasks 1 and 2)\n4. Docs: depends on #2, #3\n",
    );
    expect(problems).toEqual([]);
    expect(tasks.map((t) => [t.key, t.dependsOn])).toEqual([
      ["schema", []],
      ["api", ["schema"]],
      ["ui", ["schema", "api"]],
      ["docs", ["api", "ui"]],
    ]);
  });

  it("refuses a task waiting on itself, on a task the plan does not list, and a circle, naming the line and its text", () => {
    expect(parsePlanTasks("## Tasks\n1. A — depends on 1\n").problems[0]).toEqual({
      path: ["markdown", "line 2"],
      message: `line 2 "1. A — depends on 1": task 1 'A' depends on itself`,
    });
    expect(
      parsePlanTasks("# Plan\n\n## Tasks\n1. A — the table\n   with an index, depends on 3\n").problems[0],
    ).toEqual({
      path: ["markdown", "line 5"],
      message: `line 5 "with an index, depends on 3": task 1 'A' depends on task 3, but the plan lists tasks 1–1`,
    });
    expect(
      parsePlanTasks("## Tasks\n1. A — depends on 3\n2. B\n   after A (depends on 1)\n3. C — depends on 2\n").problems,
    ).toEqual([
      {
        path: ["markdown", "line 4"],
        message: `the tasks' dependencies go in a circle: 1 → 3 → 2 → 1, written at line 2 "1. A — depends on 3", line 5 "3. C — depends on 2", line 4 "after A (depends on 1)"`,
      },
    ]);
    // The control: the same lines waiting in one direction only are a valid plan.
    expect(parsePlanTasks("## Tasks\n1. A\n2. B\n   after A (depends on 1)\n3. C — depends on 2\n").problems).toEqual(
      [],
    );
  });
});

describe("the runner's next step", () => {
  const t = (number: number, key: string, status: any, dependsOn: string[] = []) => ({
    number,
    key,
    status,
    dependsOn,
  });
  it("starts the first pending task whose dependencies are done, in plan order", () => {
    expect(nextStep([t(1, "a", "pending", ["b"]), t(2, "b", "pending"), t(3, "c", "pending")])).toMatchObject({
      kind: "start",
      task: { key: "b" },
    });
    expect(nextStep([t(1, "a", "pending", ["b"]), t(2, "b", "done"), t(3, "c", "pending")])).toMatchObject({
      kind: "start",
      task: { key: "a" },
    });
  });
  it("waits while a task runs, stops on one that needs a person, and finishes when all are settled", () => {
    expect(nextStep([t(1, "a", "in_progress"), t(2, "b", "pending")])).toMatchObject({
      kind: "wait",
      task: { key: "a" },
    });
    expect(nextStep([t(1, "a", "blocked"), t(2, "b", "pending")])).toEqual({
      kind: "stop",
      task: t(1, "a", "blocked"),
      reason: "task 1 (a) is blocked: it waits for a person's answer",
    });
    expect(nextStep([t(1, "a", "failed")])).toMatchObject({ kind: "stop", reason: "task 1 (a) failed" });
    expect(nextStep([t(1, "a", "done"), t(2, "b", "cancelled")])).toEqual({ kind: "finished" });
  });
  it("stops when no pending task can start, naming what it waits for", () => {
    expect(nextStep([t(1, "a", "cancelled"), t(2, "b", "pending", ["a"])])).toMatchObject({
      kind: "stop",
      reason: "task 2 (b) waits for task 1 (cancelled): none of the pending tasks can start",
    });
  });
});

describe("plan analysis", () => {
  it("traces tasks to sections by their words, and a plan whose sections all have tasks is ok", () => {
    const md = "# X\n\n## Context\nwhy\n\n## Validation of input\n\n## Tasks\n1. Validate — validate the input\n";
    const analysis = analyzePlan(md, parsePlanTasks(md).tasks);
    expect(analysis).toMatchObject({
      ok: true,
      untraced: [],
      tasks: [{ task: 1, tracedTo: ["Validation of input"] }],
      findings: [],
    });
  });
});

describe("costs and report.md", () => {
  it("prices a run by the models that answered: known, offline (free), unknown (not priced)", () => {
    const run = (models: { model: string; inputTokens: number; outputTokens: number }[]) =>
      pricedRun({ runId: "r", status: "completed", trace: "/t", models });
    expect(run([{ model: "gpt-4o-mini", inputTokens: 1_000_000, outputTokens: 0 }]).costUsd).toBeGreaterThan(0);
    expect(run([{ model: "offline", inputTokens: 500, outputTokens: 20 }])).toMatchObject({
      costUsd: 0,
      models: [{ offline: true, costUsd: 0 }],
    });
    expect(
      run([
        { model: "offline", inputTokens: 1, outputTokens: 1 },
        { model: "house-model", inputTokens: 1, outputTokens: 1 },
      ]).costUsd,
    ).toBeNull();
  });

  it("renders the feature's report with its totals, each task, and says offline or not priced in words", () => {
    const offline = pricedRun({
      runId: "r1",
      status: "completed",
      trace: "/api/agents/w/runs/r1",
      models: [{ model: "offline", inputTokens: 10, outputTokens: 2 }],
    });
    const diff = {
      filesChanged: 1,
      insertions: 2,
      deletions: 0,
      files: [{ path: "a.md", change: "added" as const, insertions: 2, deletions: 0 }],
    };
    const report = rollUp(
      {
        name: "f",
        title: "F | pipes",
        status: "done",
        createdAt: Date.UTC(2026, 0, 1),
        completedAt: Date.UTC(2026, 0, 2),
      },
      [
        {
          number: 1,
          key: "a",
          name: "A",
          status: "done",
          summary: "did a\nwell",
          startedAt: 1,
          completedAt: 2,
          diff,
          question: "Q?",
          answer: "yes",
          answeredBy: "token:me",
          commits: [{ sha: "0123456789abcdef0123", message: "a: add" }],
          runs: [offline],
          tokens: { input: 10, output: 2 },
          costUsd: 0,
        },
      ],
    );
    const md = featureReportMarkdown(report, "https://x.test");
    expect(md).toContain("# Report: F | pipes");
    expect(md).toContain("- Completed: 2026-01-02T00:00:00Z");
    expect(md).toContain("| 1 | A | done | 1 file(s) +2 −0 | $0.0000 (offline stand-in) |");
    expect(md).toContain("> Q?\n\nAnswer (token:me): yes");
    expect(md).toContain("- `0123456789ab` a: add");
    expect(md).toContain("[r1](https://x.test/api/agents/w/runs/r1)");
  });
});

describe("who pulls the pause switch", () => {
  it("a person with approve or the orchestrator; not a chat token nor a worker", () => {
    const parties = { orchestrator: "planner" };
    expect(() =>
      authorizeWork("feature.pause", { kind: "person", id: "token:r", scope: "approve" }, parties),
    ).not.toThrow();
    expect(() => authorizeWork("feature.pause", { kind: "agent", name: "planner" }, parties)).not.toThrow();
    expect(() => authorizeWork("feature.pause", { kind: "person", id: "token:c", scope: "chat" }, parties)).toThrow(
      "only a person with a token of scope approve or the orchestrating agent 'planner' pauses or resumes a feature; token:c (chat token) may not",
    );
    expect(() => authorizeWork("feature.pause", { kind: "agent", name: "f-task-1" }, parties)).toThrow(/may not/);
  });
});
