import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api } from "../api/client";
import { doubleUrl, eventually } from "../runs/scripted";
import { approvedFeature, json, tokenOf } from "./helpers";

/** A worker's whole task: write one file, commit with a summary. */
const writes = (path: string, summary: string) => [
  { toolCalls: [{ name: "fs.write", arguments: { path, content: `${summary}\n` } }] },
  { toolCalls: [{ name: "task.commit", arguments: { summary } }] },
  { content: `${summary}: done` },
];

const featureStub = (feature: string) =>
  (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${feature}`));
const board = async (feature: string) => (await json(api(`/api/features/${feature}/tasks`))).tasks as any[];
const summary = (feature: string) => json(api(`/api/features/${feature}`));

describe("run-all: tasks one after another", () => {
  it("runs every task unattended in dependency order, each once, and marks the feature done with its completion time", async () => {
    // Task 1 waits for task 2 (declared), task 3 follows plan order: 2, 1, 3.
    const f = await approvedFeature(
      "# Shop\n\n## Tasks\n\n1. Cart — the cart page, depends on 2\n2. Catalog — the product list\n3. Checkout — the checkout page\n",
    );
    expect((await board(f.feature)).map((t) => [t.number, t.key, t.dependsOn, t.origin, t.planVersion])).toEqual([
      [1, "cart", [2], "plan", 1],
      [2, "catalog", [], "plan", 1],
      [3, "checkout", [], "plan", 1],
    ]);
    await f.scriptWorkers([
      ...writes("catalog.txt", "catalog"),
      ...writes("cart.txt", "cart"),
      ...writes("checkout.txt", "checkout"),
    ]);

    // Refused to a chat token (it would start tasks); the operator's own call starts the run.
    const chat = await tokenOf("chat");
    expect((await json(api(`/api/features/${f.feature}/run-all`, { method: "POST", token: chat }))).http).toBe(403);
    const started = await json(api(`/api/features/${f.feature}/run-all`, { method: "POST" }));
    expect(started).toMatchObject({
      http: 202,
      runAll: true,
      next: { task: 2, key: "catalog" },
      started: [{ task: 2, key: "catalog" }],
    });

    const done = await eventually(
      () => summary(f.feature),
      (s) => s.status === "done",
      "feature done",
    );
    expect(done).toMatchObject({ runAll: null, stopped: null, paused: false, needsPerson: 0 });
    expect(done.completedAt).toBeGreaterThanOrEqual(done.createdAt);
    const tasks = await board(f.feature);
    expect(tasks.map((t) => [t.key, t.status, t.summary])).toEqual([
      ["cart", "done", "cart"],
      ["catalog", "done", "catalog"],
      ["checkout", "done", "checkout"],
    ]);
    // In dependency order: catalog started before cart, cart before checkout; each ran once.
    const at = Object.fromEntries(tasks.map((t) => [t.key, t.startedAt]));
    expect(at.catalog).toBeLessThan(at.cart);
    expect(at.cart).toBeLessThan(at.checkout);
    for (const t of tasks)
      expect((await json(api(`/api/features/${f.feature}/tasks/${t.key}`))).runIds).toHaveLength(1);
    // Each worker's first model call was its own spec: nine calls in all, none repeated.
    expect(await f.workerCalls()).toHaveLength(9);
  });

  it("refuses a plan that waits in a circle or on a task it does not list, naming the line", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    const circle = await json(
      api(`/api/features/${f.feature}/plan`, {
        method: "PUT",
        json: { markdown: "## Tasks\n1. A — depends on 2\n2. B — depends on 1\n" },
      }),
    );
    expect(circle).toMatchObject({
      http: 422,
      error: {
        code: "tool_refused",
        message: expect.stringContaining(
          `the tasks' dependencies go in a circle: 1 → 2 → 1, written at line 2 "1. A — depends on 2", line 3 "2. B — depends on 1"`,
        ),
      },
    });
    const missing = await json(
      api(`/api/features/${f.feature}/plan`, {
        method: "PUT",
        json: { markdown: "## Tasks\n1. A\n2. B — the route\n   after the schema (depends on 7)\n" },
      }),
    );
    // The line named is the one the `depends on` is written on, below the task's own line.
    expect(missing.error.message).toContain(
      `line 4 "after the schema (depends on 7)": task 2 'B' depends on task 7, but the plan lists tasks 1–2`,
    );
    // The positive control: a plan whose tasks wait on listed ones is stored as the next version.
    const fine = await json(
      api(`/api/features/${f.feature}/plan`, {
        method: "PUT",
        json: { markdown: "## Tasks\n1. A\n2. B — depends on 1\n" },
      }),
    );
    expect(fine).toMatchObject({ http: 200, result: { version: 2 } });
  });

  it("stops on a blocked task and tells the person; answering through the task's route goes on, and run-all again finishes", async () => {
    const f = await approvedFeature("## Tasks\n1. Ask — ask first\n2. After — then this\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.block", arguments: { question: "Which colour?" } }] },
      ...writes("ask.txt", "blue it is"),
      ...writes("after.txt", "after"),
    ]);
    expect((await json(api(`/api/features/${f.feature}/run-all`, { method: "POST" }))).http).toBe(202);
    const stopped = await eventually(
      () => summary(f.feature),
      (s) => s.stopped !== null,
      "run-all stopped",
    );
    expect(stopped).toMatchObject({
      runAll: null,
      needsPerson: 1,
      stopped: { task: 1, key: "ask", reason: "task 1 (ask) is blocked: it waits for a person's answer" },
    });
    // Nothing else started meanwhile.
    expect((await board(f.feature)).map((t) => t.status)).toEqual(["blocked", "pending"]);
    // The inbox names the question's feature and task, and how to answer it.
    const approver = await tokenOf("approve");
    const inbox = await json(api("/api/approvals", { token: approver }));
    expect(inbox.approvals).toContainEqual(
      expect.objectContaining({
        kind: "question",
        feature: f.feature,
        task: 1,
        taskKey: "ask",
        question: "Which colour?",
        answer: `pantheon tasks answer ${f.feature} ask "<answer>"`,
      }),
    );
    expect(
      (
        await json(
          api(`/api/features/${f.feature}/tasks/ask/answer`, {
            method: "POST",
            token: approver,
            json: { answer: "blue" },
          }),
        )
      ).http,
    ).toBe(200);
    await eventually(
      () => board(f.feature),
      (t) => t[0].status === "done",
      "task 1 done",
    );
    expect((await json(api(`/api/features/${f.feature}/run-all`, { method: "POST" }))).http).toBe(202);
    expect(
      await eventually(
        () => summary(f.feature),
        (s) => s.status === "done",
        "feature done",
      ),
    ).toMatchObject({ needsPerson: 0, stopped: null });
  });

  it("stops on a failed task without starting the next", async () => {
    const f = await approvedFeature("## Tasks\n1. Breaks\n2. Never\n");
    await f.scriptWorkers([{ status: 400, error: "bad request from the model" }]);
    await api(`/api/features/${f.feature}/run-all`, { method: "POST" });
    const stopped = await eventually(
      () => summary(f.feature),
      (s) => s.stopped !== null,
      "run-all stopped",
    );
    expect(stopped.stopped).toMatchObject({ task: 1, reason: "task 1 (breaks) failed" });
    expect((await board(f.feature)).map((t) => t.status)).toEqual(["failed", "pending"]);
    expect(stopped.needsPerson).toBe(1);
  });

  it("survives an eviction of the feature between tasks: the next task starts from the feature's own alarm, once", async () => {
    const f = await approvedFeature("## Tasks\n1. First\n2. Second\n");
    const hold = `hold-${f.feature}`;
    await f.scriptWorkers([
      { hold, toolCalls: [{ name: "task.commit", arguments: { summary: "first" } }] },
      { content: "ok" },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "second" } }] },
      { content: "ok" },
    ]);
    await api(`/api/features/${f.feature}/run-all`, { method: "POST" });
    await eventually(
      () => board(f.feature),
      (t) => t[0].status === "in_progress" && t[0].worker,
      "task 1 running",
    );
    // The feature is dropped while its first worker thinks; nothing but its alarm and the worker's notice wake it.
    await expect(
      runInDurableObject(featureStub(f.feature), (_i: unknown, state: DurableObjectState) =>
        state.abort("test: evicted"),
      ),
    ).rejects.toThrow();
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    await eventually(
      () => summary(f.feature),
      (s) => s.status === "done",
      "feature done after the eviction",
    );
    // Extra alarms (a retried alarm after another eviction) start nothing more.
    await runDurableObjectAlarm(featureStub(f.feature));
    await runDurableObjectAlarm(featureStub(f.feature));
    const tasks = await board(f.feature);
    expect(tasks.map((t) => [t.status, t.summary])).toEqual([
      ["done", "first"],
      ["done", "second"],
    ]);
    for (const t of tasks)
      expect((await json(api(`/api/features/${f.feature}/tasks/${t.number}`))).runIds).toHaveLength(1);
    expect(await f.workerCalls()).toHaveLength(4);
  });
});

describe("the pause switch", () => {
  it("refuses writes and stops the running worker; resume starts it again with its work kept, and run-all goes on", async () => {
    const f = await approvedFeature("## Tasks\n1. Long — a long task\n2. Next\n");
    const hold = `pause-${f.feature}`;
    await f.scriptWorkers([
      { toolCalls: [{ name: "fs.write", arguments: { path: "long.txt", content: "part one\n" } }] },
      { hold, content: "(stopped by the pause)" },
      // After resume: a new run of the same task, then the next task.
      { toolCalls: [{ name: "task.commit", arguments: { summary: "long, resumed" } }] },
      { content: "ok" },
      ...writes("next.txt", "next"),
    ]);
    await api(`/api/features/${f.feature}/run-all`, { method: "POST" });
    await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.pending?.filesChanged === 1,
      "task 1 wrote its file",
    );

    // A chat token may not pull the brake; an approver may.
    expect(
      (await json(api(`/api/features/${f.feature}/pause`, { method: "POST", token: await tokenOf("chat") }))).http,
    ).toBe(403);
    const paused = await json(
      api(`/api/features/${f.feature}/pause`, { method: "POST", token: await tokenOf("approve") }),
    );
    expect(paused).toMatchObject({ http: 200, paused: true, stopped: [1] });
    expect(await summary(f.feature)).toMatchObject({ paused: true });
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    const task = await json(api(`/api/features/${f.feature}/tasks/1`));
    const run = await eventually(
      () => json(api(`/api/agents/${task.worker}/runs/${task.runIds[0]}`)),
      (r) => r.run.status === "cancelled",
      "the worker's run stopped",
    );
    expect(run.run.status).toBe("cancelled");
    // Writes are refused while paused, naming the way out; the task keeps its uncommitted work.
    const commit = await json(
      api(`/api/features/${f.feature}/tasks/1/commit`, { method: "POST", json: { summary: "by hand" } }),
    );
    expect(commit).toMatchObject({
      http: 409,
      error: { message: expect.stringContaining("the feature is paused: committing is refused") },
    });
    expect((await json(api(`/api/features/${f.feature}/tasks/2/start`, { method: "POST" }))).http).toBe(409);
    expect(await json(api(`/api/features/${f.feature}/tasks/1`))).toMatchObject({
      status: "in_progress",
      pending: { filesChanged: 1 },
    });

    const resumed = await json(api(`/api/features/${f.feature}/resume`, { method: "POST" }));
    expect(resumed).toMatchObject({ http: 200, paused: false, restarted: [1] });
    const done = await eventually(
      () => summary(f.feature),
      (s) => s.status === "done",
      "feature done after resume",
    );
    expect(done.paused).toBe(false);
    const after = await json(api(`/api/features/${f.feature}/tasks/1`));
    expect(after).toMatchObject({ status: "done", summary: "long, resumed", attempts: 2, diff: { filesChanged: 1 } });
    expect(after.runIds).toHaveLength(2);
    expect((await json(api(`/api/features/${f.feature}/files/content?path=long.txt`))).content).toBe("part one\n");
  });
});
