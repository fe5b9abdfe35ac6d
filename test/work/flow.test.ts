import { describe, expect, it } from "vitest";
import { api } from "../api/client";
import { eventually } from "../runs/scripted";
import { approvedFeature, json, plannerAndWorkers, tokenOf } from "./helpers";

const planV1 = `# Login page

## Tasks

1. Form — the login form in src/login.html
2. Handler — the POST handler in src/login.ts
`;

const planV2 = `# Login page

## Tasks

1. Form — the login form in src/login.html, with a remember-me box
2. Handler — the POST handler in src/login.ts
`;

describe("a feature end to end with the scripted model", () => {
  it("goes request → plan → comment → new version → approve → sync → tasks run, block, answer, commit → report", async () => {
    const { planner, scriptWorkers, workerCalls, worker } = await plannerAndWorkers();
    const feature = `login-${Date.now().toString(36)}`;
    const approver = await tokenOf("approve");
    const chat = await tokenOf("chat");

    // The request: the planner creates the feature and writes the plan with its own tools.
    await planner.script([
      { toolCalls: [{ name: "feature.create", arguments: { name: feature, title: "Login page" } }] },
      { toolCalls: [{ name: "plan.write", arguments: { feature, markdown: planV1 } }] },
      { content: "I wrote a plan for the login page: please review it." },
    ]);
    const turn = await planner.send("Build a login page");
    expect(turn.status).toBe(200);
    const created = await json(api(`/api/features/${feature}`));
    expect(created).toMatchObject({
      name: feature,
      title: "Login page",
      status: "planning",
      orchestrator: planner.name,
      plan: { version: 1, approved: false },
    });
    // The session the planner worked in is the feature's first.
    expect(created.sessions).toEqual([
      expect.objectContaining({ agent: planner.name, sessionId: turn.body.sessionId }),
    ]);
    // The feature's worker template comes from the operator: give the workers their own model.
    expect((await json(api("/api/features"))).features.map((f: any) => f.name)).toContain(feature);

    // A person comments on a line of the plan (a chat token may), then the planner writes version 2.
    const comment = await json(
      api(`/api/features/${feature}/plan/comments`, {
        method: "POST",
        token: chat,
        json: { line: 5, body: "Add a remember-me box" },
      }),
    );
    expect(comment).toMatchObject({ http: 201, version: 1, line: 5, body: "Add a remember-me box" });
    await planner.script([
      { toolCalls: [{ name: "plan.write", arguments: { markdown: planV2 } }] },
      { content: "Version 2 is up." },
    ]);
    await planner.send("Address the comment");
    const v2 = await json(api(`/api/features/${feature}/plan`));
    expect(v2).toMatchObject({ version: 2, latest: true, approved: false, comments: [] });
    expect(v2.tasks.map((t: any) => t.name)).toEqual(["Form", "Handler"]);
    expect((await json(api(`/api/features/${feature}/plan?version=1`))).comments).toHaveLength(1);

    // Approval is a person's with the approve scope.
    expect(
      (await json(api(`/api/features/${feature}/plan/approve`, { method: "POST", token: chat, json: {} }))).http,
    ).toBe(403);
    const approved = await json(
      api(`/api/features/${feature}/plan/approve`, { method: "POST", token: approver, json: { version: 2 } }),
    );
    expect(approved).toMatchObject({
      http: 200,
      version: 2,
      approved: true,
      approvedBy: expect.stringMatching(/^token:/),
    });

    // The operator gives the feature's workers their own model (the template), then the planner syncs.
    await setWorkerTemplate(feature, worker);
    await planner.script([
      { toolCalls: [{ name: "tasks.sync", arguments: {} }] },
      { content: "Two tasks are on the board." },
    ]);
    await planner.send("Sync the tasks");
    const board = await json(api(`/api/features/${feature}/tasks`, { token: chat }));
    expect(board.tasks.map((t: any) => [t.number, t.name, t.status])).toEqual([
      [1, "Form", "pending"],
      [2, "Handler", "pending"],
    ]);

    // Task 1: started by the planner's tool; its worker writes a file and commits.
    await scriptWorkers([
      {
        toolCalls: [
          {
            name: "fs.write",
            arguments: {
              path: "src/login.html",
              content: "<form>\n<input name=user>\n<input type=checkbox name=remember>\n</form>\n",
            },
          },
        ],
      },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "Added the login form with a remember-me box" } }] },
      { content: "Task 1 is done." },
    ]);
    await planner.script([
      { toolCalls: [{ name: "task.start", arguments: { task: 1 } }] },
      { content: "Task 1 is running." },
    ]);
    await planner.send("Start task 1");
    const task1 = await eventually(
      () => json(api(`/api/features/${feature}/tasks/1`)),
      (t) => t.status === "done",
      "task 1 done",
    );
    expect(task1).toMatchObject({
      summary: "Added the login form with a remember-me box",
      worker: `${feature}-task-1`,
      diff: { filesChanged: 1, insertions: 4, deletions: 0 },
    });
    expect(task1.spec.prompt).toContain("# Task 1: Form");
    expect(task1.spec.prompt).toContain("with a remember-me box");
    expect(task1.spec.upcoming).toEqual([{ number: 2, name: "Handler" }]);
    // The worker's first model call was the spec, word for word: the single source of its prompt.
    const firstCall = (await workerCalls())[0];
    expect(firstCall.messages.at(-1).content).toBe(task1.spec.prompt);
    expect((await json(api(`/api/features/${feature}/files/content?path=src/login.html`))).content).toContain(
      "remember",
    );

    // Task 2: the worker asks a question; it shows in the approvals inbox; a person answers; the same run goes on.
    await scriptWorkers([
      { toolCalls: [{ name: "task.block", arguments: { question: "Should failed logins be rate limited?" } }] },
      { toolCalls: [{ name: "fs.write", arguments: { path: "src/login.ts", content: "export const limit = 5;\n" } }] },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "Handler with a limit of 5 attempts" } }] },
      { content: "Task 2 is done." },
    ]);
    const started = await json(api(`/api/features/${feature}/tasks/2/start`, { method: "POST" }));
    expect(started).toMatchObject({ http: 202, task: 2, worker: `${feature}-task-2` });
    const blocked = await eventually(
      () => json(api(`/api/features/${feature}/tasks/2`)),
      (t) => t.status === "blocked",
      "task 2 blocked",
    );
    expect(blocked.question).toBe("Should failed logins be rate limited?");
    const inbox = await json(api("/api/approvals", { token: approver }));
    expect(inbox.approvals).toContainEqual(
      expect.objectContaining({
        agent: `${feature}-task-2`,
        runId: started.runId,
        tool: "task.block",
        arguments: { question: "Should failed logins be rate limited?" },
      }),
    );
    expect(
      (
        await json(
          api(`/api/features/${feature}/tasks/2/answer`, { method: "POST", token: chat, json: { answer: "yes" } }),
        )
      ).http,
    ).toBe(403);
    const answered = await json(
      api(`/api/features/${feature}/tasks/2/answer`, {
        method: "POST",
        token: approver,
        json: { answer: "Yes, 5 attempts a minute" },
      }),
    );
    expect(answered).toMatchObject({ http: 200, runId: started.runId });
    const task2 = await eventually(
      () => json(api(`/api/features/${feature}/tasks/2`)),
      (t) => t.status === "done",
      "task 2 done",
    );
    expect(task2).toMatchObject({ answer: "Yes, 5 attempts a minute", runIds: [started.runId] });
    // The answer reached the model as the task.block call's result, in the same run.
    const calls = await workerCalls();
    const resumed = calls.find((c: any) =>
      c.messages.some((m: any) => m.role === "tool" && String(m.content).includes("Yes, 5 attempts a minute")),
    );
    expect(resumed).toBeDefined();

    // The report: each task's status, summary, times, diff stats and files, runs with traces, tokens.
    const report = await json(api(`/api/features/${feature}/report`, { token: chat }));
    expect(report).toMatchObject({
      http: 200,
      feature,
      byStatus: { done: 2 },
      diff: { filesChanged: 2, files: ["src/login.html", "src/login.ts"] },
      runs: 6,
    });
    // The planner's runs (create and plan, plan v2, sync, start task 1) count too.
    expect(report.planner.runs.map((r: any) => r.trace.split("/")[3])).toEqual([
      planner.name,
      planner.name,
      planner.name,
      planner.name,
    ]);
    expect(report.tasks[1]).toMatchObject({
      number: 2,
      status: "done",
      summary: "Handler with a limit of 5 attempts",
      diff: { filesChanged: 1, insertions: 1 },
    });
    expect(report.tasks[1].startedAt).toBeLessThanOrEqual(report.tasks[1].completedAt);
    expect(report.tasks[1].runs[0]).toMatchObject({
      runId: started.runId,
      status: "completed",
      trace: `/api/agents/${feature}-task-2/runs/${started.runId}`,
    });
    expect(report.tokens.input).toBeGreaterThan(0);
    expect((await json(api(report.tasks[1].runs[0].trace, { token: chat }))).run.status).toBe("completed");
    const finished = await json(api(`/api/features/${feature}`));
    expect(finished.status).toBe("done");
    expect(finished.sessions.map((s: any) => s.agent)).toEqual([
      planner.name,
      `${feature}-task-1`,
      `${feature}-task-2`,
    ]);
  });
});

/** The operator sets what the feature's workers are made of (PATCH, admin). */
async function setWorkerTemplate(feature: string, worker: Record<string, unknown>) {
  const res = await api(`/api/features/${feature}`, { method: "PATCH", json: { worker } });
  expect(res.status).toBe(200);
}

describe("tasks synced again, and the workspace", () => {
  it("keeps the status of unchanged tasks when the plan changes, adds new ones and removes orphans", async () => {
    const f = await approvedFeature("## Tasks\n1. One — first\n2. Two — second\n3. Three — third\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.commit", arguments: { summary: "one done" } }] },
      { content: "ok" },
    ]);
    await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" });
    await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "done",
      "task 1 done",
    );
    await api(`/api/features/${f.feature}/plan`, {
      method: "PUT",
      json: { markdown: "## Tasks\n1. One — first\n2. Two — second, changed\n3. Four — new\n" },
    });
    // A new version needs its own approval before a sync.
    expect((await json(api(`/api/features/${f.feature}/tasks/sync`, { method: "POST" }))).error.message).toMatch(
      /not approved/,
    );
    await api(`/api/features/${f.feature}/plan/approve`, { method: "POST", json: {} });
    const synced = await json(api(`/api/features/${f.feature}/tasks/sync`, { method: "POST" }));
    expect(synced.result).toMatchObject({
      added: ["four"],
      changed: ["two"],
      kept: ["one"],
      removed: [{ key: "three", number: 3 }],
    });
    const board = await json(api(`/api/features/${f.feature}/tasks`));
    expect(board.tasks.map((t: any) => [t.number, t.name, t.status, t.summary])).toEqual([
      [1, "One", "done", "one done"],
      [2, "Two", "pending", null],
      [3, "Four", "pending", null],
    ]);
  });
});
