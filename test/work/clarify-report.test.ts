import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { eventually } from "../runs/scripted";
import { approvedFeature, json, plannerAndWorkers, tokenOf } from "./helpers";

describe("clarify: the planner asks before it writes the plan", () => {
  it("asks up to the feature's limit; each question waits in the inbox, is answered only as an answer, and the answer reaches the planner", async () => {
    const { planner } = await plannerAndWorkers();
    const feature = uniqueName("clar").slice(0, 40);
    expect(
      (
        await api("/api/features", {
          method: "POST",
          json: { name: feature, title: "Clarified", orchestrator: planner.name, maxQuestions: 1 },
        })
      ).status,
    ).toBe(201);
    await planner.script([
      { toolCalls: [{ name: "plan.ask", arguments: { feature, question: "Which browsers must it support?" } }] },
      // Past the limit: refused, with what to do instead.
      { toolCalls: [{ name: "plan.ask", arguments: { feature, question: "And which screen sizes?" } }] },
      { content: "I asked what I need; I will plan once you answer." },
    ]);
    const turn = await planner.send("Plan the feature");
    expect(turn.status).toBe(200);
    const calls = (await planner.modelCalls())
      .at(-1)
      .messages.filter((m: any) => m.role === "tool")
      .map((m: any) => m.content);
    expect(calls[1]).toContain(
      "you asked 1 question(s), the most this feature allows (1): write the plan with what you know",
    );

    const approver = await tokenOf("approve");
    const inbox = (await json(api("/api/approvals", { token: approver }))).approvals as any[];
    const q = inbox.find((a) => a.feature === feature);
    expect(q).toMatchObject({
      kind: "question",
      agent: planner.name,
      tool: "plan.ask",
      question: "Which browsers must it support?",
      task: null,
      answer: expect.stringContaining(`pantheon plan answer ${feature} `),
    });
    // It is not a run waiting for approval: the planner's run that asked has ended.
    expect(
      (
        await json(
          api(`/api/agents/${planner.name}/runs/${q.runId}/approval`, {
            method: "POST",
            token: approver,
            json: { decision: "approve" },
          }),
        )
      ).http,
    ).toBe(409);
    expect((await json(api(`/api/features/${feature}`))).needsPerson).toBe(1);

    // A chat token may not answer; the operator does, and the planner's next turn carries the answer
    // (with no more rights than the run that asked and the person who answered).
    expect(
      (
        await json(
          api(`/api/features/${feature}/questions/${q.callId}/answer`, {
            method: "POST",
            token: await tokenOf("chat"),
            json: { answer: "all" },
          }),
        )
      ).http,
    ).toBe(403);
    await planner.script([
      {
        toolCalls: [
          {
            name: "plan.write",
            arguments: {
              feature,
              markdown:
                "# Clarified\n\n## Browsers\n\nEvergreen browsers only.\n\n## Tasks\n\n1. Browser support — evergreen browsers\n",
            },
          },
        ],
      },
      { content: "Plan written." },
    ]);
    const answered = await json(
      api(`/api/features/${feature}/questions/${q.callId}/answer`, {
        method: "POST",
        json: { answer: "Evergreen browsers only" },
      }),
    );
    expect(answered).toMatchObject({
      http: 200,
      told: true,
      question: { answer: "Evergreen browsers only", answeredBy: "admin" },
    });
    // Answered once: a second, different answer is refused.
    expect(
      (
        await json(
          api(`/api/features/${feature}/questions/${q.callId}/answer`, {
            method: "POST",
            token: approver,
            json: { answer: "IE too" },
          }),
        )
      ).http,
    ).toBe(409);
    const plan = await eventually(
      () => json(api(`/api/features/${feature}/plan`)),
      (p) => p.http === 200,
      "the planner wrote the plan",
    );
    expect(plan.version).toBe(1);
    expect((await json(api(`/api/features/${feature}/questions`))).questions).toEqual([
      expect.objectContaining({ question: "Which browsers must it support?", answer: "Evergreen browsers only" }),
    ]);
    const told = (await planner.modelCalls()).find((c: any) =>
      c.messages.some((m: any) => m.role === "user" && String(m.content).includes("Evergreen browsers only")),
    );
    expect(told).toBeDefined();
    expect(
      ((await json(api("/api/approvals", { token: approver }))).approvals as any[]).some((a) => a.feature === feature),
    ).toBe(false);
  });
});

describe("an answer lends the planner no rights", () => {
  it("an approver's answer starts the planner's turn with the approver's rights: its plan.write (an admin's) waits, and nothing is written", async () => {
    const { planner } = await plannerAndWorkers();
    const feature = uniqueName("lend").slice(0, 40);
    await api("/api/features", { method: "POST", json: { name: feature, title: "Lend", orchestrator: planner.name } });
    await planner.script([
      { toolCalls: [{ name: "plan.ask", arguments: { feature, question: "Scope?" } }] },
      { content: "asked" },
    ]);
    await planner.send("Plan it");
    const approver = await tokenOf("approve");
    const q = ((await json(api(`/api/features/${feature}/questions`))).questions as any[])[0];
    // The answer asks for more than the approver may do: the planner tries, and its call waits for an admin.
    await planner.script([
      { toolCalls: [{ name: "plan.write", arguments: { feature, markdown: "## Tasks\n1. Everything\n" } }] },
      { content: "written" },
    ]);
    expect(
      (
        await json(
          api(`/api/features/${feature}/questions/${q.id}/answer`, {
            method: "POST",
            token: approver,
            json: { answer: "Write the plan now and approve it yourself" },
          }),
        )
      ).http,
    ).toBe(200);
    const waiting = await eventually(
      () => json(api("/api/approvals", { token: approver })),
      (b) => b.approvals.some((a: any) => a.agent === planner.name && a.tool === "plan.write"),
      "plan.write waits for an admin",
    );
    expect(waiting.approvals.find((a: any) => a.tool === "plan.write")).toMatchObject({
      kind: "approval",
      approverScope: "admin",
    });
    expect((await json(api(`/api/features/${feature}/plan`))).http).toBe(404);
  });
});

describe("plan analysis", () => {
  it("traces each task to a plan section and names sections without a task, on the route and the plan's review", async () => {
    const markdown =
      "# Login\n\n## Problem\n\nPeople cannot sign in.\n\n## Login form\n\nA form.\n\n## Rate limiting\n\nFive attempts.\n\n## Tasks\n\n1. Form — the login form page\n2. Audit log — record sign-ins\n";
    const f = await approvedFeature(markdown);
    const analysis = await json(api(`/api/features/${f.feature}/plan/analysis`, { token: await tokenOf("chat") }));
    expect(analysis).toMatchObject({
      http: 200,
      version: 1,
      ok: false,
      tasks: [
        { task: 1, key: "form", tracedTo: ["Login form"] },
        { task: 2, key: "audit-log", tracedTo: [] },
      ],
      untraced: ["Rate limiting"],
      findings: ["task 2 'Audit log' is not traced to any section of the plan", "section 'Rate limiting' has no task"],
    });
    expect((await json(api(`/api/features/${f.feature}/plan`))).analysis.ok).toBe(false);
  });
});

describe("report.md", () => {
  it("gives the feature's and each task's report as markdown: completion, status, summary, diff stats, files, question and answer, runs, tokens and cost with the planner's", async () => {
    const f = await approvedFeature("# Notes\n\n## Tasks\n\n1. Notes — write notes.md\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.block", arguments: { question: "Markdown or text?" } }] },
      { toolCalls: [{ name: "fs.write", arguments: { path: "notes.md", content: "# Notes\n\nhello\n" } }] },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "Wrote notes.md in markdown" } }] },
      { content: "ok" },
    ]);
    await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" });
    await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "blocked",
      "blocked",
    );
    await api(`/api/features/${f.feature}/tasks/1/answer`, { method: "POST", json: { answer: "Markdown" } });
    await eventually(
      () => json(api(`/api/features/${f.feature}`)),
      (s) => s.status === "done",
      "done",
    );

    const chat = await tokenOf("chat");
    const res = await api(`/api/features/${f.feature}/report.md`, { token: chat });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const md = await res.text();
    expect(md).toMatch(/^# Report: A feature\n/);
    expect(md).toContain(`- Feature: ${f.feature}`);
    expect(md).toContain("- Status: **done**");
    expect(md).toMatch(/- Completed: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    expect(md).toContain("| 1 | Notes | done | 1 file(s) +3 −0 |");
    expect(md).toContain("- notes.md");
    expect(md).toContain("> Markdown or text?");
    expect(md).toContain("Answer (admin): Markdown");
    expect(md).toContain("Wrote notes.md in markdown");
    expect(md).toContain("## Planning");
    // The workers' scripted model has no known price: said once, in words.
    expect(md).toContain("not priced");
    const task = await (await api(`/api/features/${f.feature}/tasks/notes/report.md`, { token: chat })).text();
    expect(task).toMatch(/^# Task 1: Notes\n/);
    expect(task).toContain("| notes.md | added | 3 | 0 |");
    expect(task).toMatch(
      /\| \[[0-9a-f-]{36}\]\(https?:\/\/[^)]+\/api\/agents\/[^)]+\/runs\/[0-9a-f-]{36}\) \| completed \|/,
    );
    // The JSON report has the same, with the planner's runs.
    const report = await json(api(`/api/features/${f.feature}/report`, { token: chat }));
    expect(report.completedAt).toBeGreaterThan(0);
    expect(report.planner.runs.length).toBeGreaterThan(0);
    expect(report.tasks[0]).toMatchObject({
      key: "notes",
      question: "Markdown or text?",
      answer: "Markdown",
      answeredBy: "admin",
    });
  });

  it("keeps counting a removed task's files while they are in the tree", async () => {
    const f = await approvedFeature("## Tasks\n1. Early — writes early.txt\n2. Later — stays\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "fs.write", arguments: { path: "early.txt", content: "e\n" } }] },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "early" } }] },
      { content: "ok" },
    ]);
    await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" });
    await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "done",
      "done",
    );
    await f.planner.script([
      {
        toolCalls: [
          { name: "plan.write", arguments: { feature: f.feature, markdown: "## Tasks\n1. Later — stays\n" } },
        ],
      },
      { content: "v2" },
    ]);
    await f.planner.send("drop the early task");
    await api(`/api/features/${f.feature}/plan/approve`, { method: "POST", json: {} });
    await f.planner.script([
      { toolCalls: [{ name: "tasks.sync", arguments: { feature: f.feature } }] },
      { content: "synced" },
    ]);
    await f.planner.send("sync");
    const report = await json(api(`/api/features/${f.feature}/report`));
    expect(report.tasks.map((t: any) => t.key)).toEqual(["later"]);
    expect(report.removed).toEqual([expect.objectContaining({ key: "early", status: "done" })]);
    expect(report.diff).toMatchObject({ filesChanged: 1, files: ["early.txt"] });
    expect(await (await api(`/api/features/${f.feature}/report.md`)).text()).toContain(
      "- Early (`early`): done, early.txt",
    );
  });
});
