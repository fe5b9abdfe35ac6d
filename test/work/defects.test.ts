import { describe, expect, it } from "vitest";
import { api } from "../api/client";
import { doubleUrl, eventually } from "../runs/scripted";
import { approvedFeature, json, tokenOf } from "./helpers";

const task = (feature: string, ref: string | number) => json(api(`/api/features/${feature}/tasks/${ref}`));
const inbox = async (token: string) => (await json(api("/api/approvals", { token }))).approvals as any[];

/** The planner writes a new plan version, a person approves it, the planner syncs. */
async function replan(f: Awaited<ReturnType<typeof approvedFeature>>, markdown: string) {
  await f.planner.script([
    { toolCalls: [{ name: "plan.write", arguments: { feature: f.feature, markdown } }] },
    { content: "new plan" },
  ]);
  await f.planner.send("replan");
  expect((await json(api(`/api/features/${f.feature}/plan/approve`, { method: "POST", json: {} }))).http).toBe(200);
  await f.planner.script([
    { toolCalls: [{ name: "tasks.sync", arguments: { feature: f.feature } }] },
    { content: "synced" },
  ]);
  await f.planner.send("sync");
}

describe("a worker bound to its task's key", () => {
  it("keeps working its task after a re-sync renumbers it while blocked: answered, it writes and commits, and the task is done", async () => {
    const f = await approvedFeature("## Tasks\n1. Drop — goes away\n2. Keep — stays\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.block", arguments: { question: "Tabs or spaces?" } }] },
      { toolCalls: [{ name: "fs.write", arguments: { path: "keep.txt", content: "spaces\n" } }] },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "kept, with spaces" } }] },
      { content: "done" },
    ]);
    const started = await json(api(`/api/features/${f.feature}/tasks/2/start`, { method: "POST" }));
    await eventually(
      () => task(f.feature, "keep"),
      (t) => t.status === "blocked",
      "task blocked",
    );
    // Plan v2 drops task 1: the blocked task is task 1 now.
    await replan(f, "## Tasks\n1. Keep — stays\n2. Extra — new\n");
    expect(await task(f.feature, 1)).toMatchObject({
      key: "keep",
      status: "blocked",
      worker: started.worker,
      planVersion: 2,
    });
    const answered = await json(
      api(`/api/features/${f.feature}/tasks/keep/answer`, {
        method: "POST",
        token: await tokenOf("approve"),
        json: { answer: "spaces" },
      }),
    );
    expect(answered).toMatchObject({ http: 200, task: 1, key: "keep", resumed: true });
    const done = await eventually(
      () => task(f.feature, "keep"),
      (t) => t.status === "done",
      "task done",
    );
    expect(done).toMatchObject({ number: 1, summary: "kept, with spaces", diff: { filesChanged: 1 } });
    expect((await json(api(`/api/features/${f.feature}/files/content?path=keep.txt`))).content).toBe("spaces\n");
    // The new task 2 gets a worker of its own, not the one named after the old task 2.
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.commit", arguments: { summary: "extra" } }] },
      { content: "ok" },
    ]);
    const extra = await json(api(`/api/features/${f.feature}/tasks/extra/start`, { method: "POST" }));
    expect(extra).toMatchObject({ http: 202, task: 2, key: "extra" });
    expect(extra.worker).not.toBe(started.worker);
    expect(
      await eventually(
        () => task(f.feature, "extra"),
        (t) => t.status === "done",
        "extra done",
      ),
    ).toMatchObject({ summary: "extra" });
  });
});

describe("a question is answered only as an answer", () => {
  it("refuses approving or rejecting a task.block call, naming `tasks answer`; an ordinary approval of the same worker still works", async () => {
    const f = await approvedFeature("## Tasks\n1. Ask — ask\n");
    // The operator makes fs.write wait for approval too: an ordinary approval, the control.
    expect(
      (
        await api(`/api/features/${f.feature}`, {
          method: "PATCH",
          json: { worker: { ...f.worker, approvalRequired: ["fs.write"] } },
        })
      ).status,
    ).toBe(200);
    await f.scriptWorkers([
      { toolCalls: [{ name: "fs.write", arguments: { path: "a.txt", content: "a\n" } }] },
      { toolCalls: [{ name: "task.block", arguments: { question: "Ship it?" } }] },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "shipped" } }] },
      { content: "ok" },
    ]);
    const approver = await tokenOf("approve");
    const started = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    const write = await eventually(
      () => inbox(approver),
      (a) => a.some((x) => x.runId === started.runId && x.tool === "fs.write"),
      "fs.write waits",
    );
    expect(write.find((x) => x.tool === "fs.write")).toMatchObject({ kind: "approval" });
    // fs.write is the operator's (admin): the admin approves it.
    expect(
      (
        await json(
          api(`/api/agents/${started.worker}/runs/${started.runId}/approval`, {
            method: "POST",
            json: { decision: "approve" },
          }),
        )
      ).http,
    ).toBe(200);

    await eventually(
      () => task(f.feature, 1),
      (t) => t.status === "blocked",
      "task blocked",
    );
    for (const [decision, token] of [
      ["approve", approver],
      ["reject", approver],
      ["approve", undefined],
    ] as const) {
      const refused = await json(
        api(`/api/agents/${started.worker}/runs/${started.runId}/approval`, {
          method: "POST",
          ...(token ? { token } : {}),
          json: { decision },
        }),
      );
      expect(refused).toMatchObject({
        http: 409,
        error: { message: expect.stringContaining(`answer it with pantheon tasks answer ${f.feature} ask "<answer>"`) },
      });
    }
    expect(await task(f.feature, 1)).toMatchObject({ status: "blocked" });
    expect(
      (
        await json(
          api(`/api/features/${f.feature}/tasks/1/answer`, {
            method: "POST",
            token: approver,
            json: { answer: "yes" },
          }),
        )
      ).http,
    ).toBe(200);
    expect(
      await eventually(
        () => task(f.feature, 1),
        (t) => t.status === "done",
        "task done",
      ),
    ).toMatchObject({ summary: "shipped", answer: "yes" });
    expect((await inbox(approver)).filter((a) => a.agent === started.worker)).toEqual([]);
  });
});

describe("every inbox entry leaves when its task moves on", () => {
  it("a task.block invoked by hand leaves the inbox once the task is answered", async () => {
    const f = await approvedFeature("## Tasks\n1. Manual — by hand\n");
    const hold = `manual-${f.feature}`;
    await f.scriptWorkers([{ hold, content: "thinking" }]);
    const started = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    await eventually(
      () => task(f.feature, 1),
      (t) => t.status === "in_progress" && t.runIds.length === 1,
      "the worker runs",
    );
    const approver = await tokenOf("approve");
    // The operator asks in the worker's name, by hand.
    const manual = await json(
      api(`/api/agents/${started.worker}/tools/task.block/invoke`, {
        method: "POST",
        json: { arguments: { question: "Manual question?" } },
      }),
    );
    expect(manual).toMatchObject({ status: "waiting_approval" });
    await eventually(
      () => task(f.feature, 1),
      (t) => t.status === "blocked" && t.question === "Manual question?",
      "task blocked by hand",
    );
    expect(await inbox(approver)).toContainEqual(
      expect.objectContaining({
        agent: started.worker,
        runId: manual.runId,
        kind: "question",
        feature: f.feature,
        task: 1,
      }),
    );
    expect(
      (
        await json(
          api(`/api/features/${f.feature}/tasks/1/answer`, {
            method: "POST",
            token: approver,
            json: { answer: "manual answer" },
          }),
        )
      ).http,
    ).toBe(200);
    await eventually(
      () => inbox(approver),
      (a) => !a.some((x) => x.agent === started.worker),
      "the question left the inbox",
    );
    const run = await json(api(`/api/agents/${started.worker}/runs/${manual.runId}`));
    expect(run.run.status).toBe("completed");
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
  });

  it("a blocked task that is discarded takes its question out of the inbox; another task's question stays", async () => {
    const f = await approvedFeature("## Tasks\n1. Gone — will be discarded\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.block", arguments: { question: "Which?" } }] },
      { content: "told no" },
    ]);
    const approver = await tokenOf("approve");
    const started = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    await eventually(
      () => inbox(approver),
      (a) => a.some((x) => x.runId === started.runId),
      "the question is in the inbox",
    );
    const other = await approvedFeature("## Tasks\n1. Stays — keeps asking\n");
    await other.scriptWorkers([{ toolCalls: [{ name: "task.block", arguments: { question: "Still?" } }] }]);
    const otherRun = await json(api(`/api/features/${other.feature}/tasks/1/start`, { method: "POST" }));
    await eventually(
      () => inbox(approver),
      (a) => a.some((x) => x.runId === otherRun.runId),
      "the other question is in the inbox",
    );

    expect(await json(api(`/api/features/${f.feature}/tasks/1/discard`, { method: "POST" }))).toMatchObject({
      http: 200,
      status: "cancelled",
    });
    const after = await eventually(
      () => inbox(approver),
      (a) => !a.some((x) => x.runId === started.runId),
      "the question left",
    );
    expect(after.some((x) => x.runId === otherRun.runId)).toBe(true);
  });
});

describe("cost priced by the model that answered", () => {
  it("prices a run by the answering model, and an offline stand-in run at 0 saying offline", async () => {
    const f = await approvedFeature("## Tasks\n1. Priced — answered by another model\n");
    // Asked for the feature's own (unpriced) model; the provider answered as gpt-4o-mini.
    await f.scriptWorkers([
      { answerAs: "gpt-4o-mini", toolCalls: [{ name: "task.commit", arguments: { summary: "priced" } }] },
      { answerAs: "gpt-4o-mini", content: "ok" },
    ]);
    await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" });
    await eventually(
      () => task(f.feature, 1),
      (t) => t.status === "done",
      "done",
    );
    const report = await json(api(`/api/features/${f.feature}/report`));
    const run = report.tasks[0].runs[0];
    expect(run.models).toEqual([
      {
        model: "gpt-4o-mini",
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
        offline: false,
        costUsd: expect.any(Number),
      },
    ]);
    expect(run.costUsd).toBeGreaterThan(0);

    const offline = await approvedFeature("## Tasks\n1. Offline — the stand-in answers\n");
    expect(
      (
        await api(`/api/features/${offline.feature}`, {
          method: "PATCH",
          json: { worker: { model: { provider: "offline", name: "offline" } } },
        })
      ).status,
    ).toBe(200);
    await api(`/api/features/${offline.feature}/tasks/1/start`, { method: "POST" });
    await eventually(
      () => task(offline.feature, 1),
      (t) => t.status === "partial",
      "the stand-in ended without committing",
    );
    const free = await json(api(`/api/features/${offline.feature}/report`));
    expect(free.tasks[0].runs[0].models).toEqual([
      expect.objectContaining({ model: "offline", offline: true, costUsd: 0 }),
    ]);
    expect(free.tasks[0].costUsd).toBe(0);
    const md = await (await api(`/api/features/${offline.feature}/tasks/1/report.md`)).text();
    expect(md).toContain("$0.0000 (offline stand-in)");
  });
});
