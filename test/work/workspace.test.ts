import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { eventually } from "../runs/scripted";
import { approvedFeature, json, tokenOf } from "./helpers";
import type { FeatureDO } from "../../durable-objects/feature/feature-do";

const stubOf = (feature: string) =>
  (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${feature}`)) as DurableObjectStub<FeatureDO>;
const admin = { kind: "person" as const, id: "admin", scope: "admin" as const };
const workerOf = (feature: string, task: number) => ({ kind: "agent" as const, name: `${feature}-task-${task}` });

/** A feature with three approved, synced tasks, two of them begun (their workers named, nothing run). */
async function begun(files: Record<string, string> = { "src/shared.ts": "export const a = 1;\n" }) {
  const f = await approvedFeature("## Tasks\n1. One — first\n2. Two — second\n3. Three — third\n", { files });
  const stub = stubOf(f.feature);
  for (const task of [1, 2]) expect((await stub.beginTask(task, admin)).ok).toBe(true);
  return { ...f, stub };
}

describe("a task's copy-on-write overlay", () => {
  it("shows a task its own changes over the tree, and nobody else until commit", async () => {
    const { feature, stub } = await begun();
    expect(
      await stub.writeFile({ task: 1, path: "src/shared.ts", content: "export const a = 2;\n" }, workerOf(feature, 1)),
    ).toMatchObject({ ok: true });
    expect(await stub.writeFile({ task: 1, path: "src/new.ts", content: "new\n" }, workerOf(feature, 1))).toMatchObject(
      { ok: true },
    );
    expect(((await stub.readFile({ task: 1, path: "src/shared.ts" })) as any).value.content).toBe(
      "export const a = 2;\n",
    );
    expect(((await stub.readFile({ task: 2, path: "src/shared.ts" })) as any).value.content).toBe(
      "export const a = 1;\n",
    );
    expect(((await stub.readFile({ path: "src/shared.ts" })) as any).value.content).toBe("export const a = 1;\n");
    expect(((await stub.listFiles({ task: 1 })) as any).value.map((f: any) => [f.path, f.changed])).toEqual([
      ["src/new.ts", true],
      ["src/shared.ts", true],
    ]);
    expect(((await stub.listFiles({})) as any).value.map((f: any) => f.path)).toEqual(["src/shared.ts"]);
  });

  it("refuses paths outside the workspace, files over the limit, and writes by anyone but the task's worker", async () => {
    const { feature, stub } = await begun();
    for (const path of ["../../etc/passwd", "/abs", "a/../b"]) {
      expect(await stub.writeFile({ task: 1, path, content: "x" }, workerOf(feature, 1))).toMatchObject({
        ok: false,
        code: "validation_failed",
      });
    }
    expect(
      await stub.writeFile({ task: 1, path: "big.bin", content: "x".repeat(1024 * 1024 + 1) }, workerOf(feature, 1)),
    ).toMatchObject({ ok: false, code: "payload_too_large" });
    // Another task's worker, the orchestrator and an admin do not write into task 1's copy.
    for (const who of [workerOf(feature, 2), { kind: "agent" as const, name: "someone" }, admin]) {
      const refused = await stub.writeFile({ task: 1, path: "x.ts", content: "x" }, who);
      expect(refused).toMatchObject({ ok: false, code: "forbidden" });
    }
    // A pending task has no worker yet, and takes no files.
    expect(await stub.writeFile({ task: 3, path: "x.ts", content: "x" }, workerOf(feature, 3))).toMatchObject({
      ok: false,
      code: "forbidden",
    });
  });

  it("commits once per key: a retried commit answers what the first did and applies nothing again", async () => {
    const { feature, stub } = await begun();
    await stub.writeFile(
      { task: 1, path: "src/shared.ts", content: "export const a = 2;\nexport const b = 3;\n" },
      workerOf(feature, 1),
    );
    const first = await stub.commitTask(
      { task: 1, key: "run-1/call-7", summary: "bumped a, added b" },
      workerOf(feature, 1),
    );
    expect(first).toMatchObject({
      ok: true,
      value: { committed: true, status: "done", diff: { filesChanged: 1, insertions: 2, deletions: 1 } },
    });
    const again = await stub.commitTask(
      { task: 1, key: "run-1/call-7", summary: "bumped a, added b" },
      workerOf(feature, 1),
    );
    expect(again).toEqual(first);
    const file = ((await stub.readFile({ path: "src/shared.ts" })) as any).value;
    // Version 1 was the starting file; one commit made it 2, the retry did not make it 3.
    expect(file).toMatchObject({ version: 2, content: "export const a = 2;\nexport const b = 3;\n" });
  });

  it("a commit that meets a change committed meanwhile on the same lines keeps the work on the task's branch and puts the marked merge in the task's copy", async () => {
    const { feature, stub } = await begun();
    await stub.writeFile({ task: 1, path: "src/shared.ts", content: "one\n" }, workerOf(feature, 1));
    await stub.writeFile({ task: 2, path: "src/shared.ts", content: "two\n" }, workerOf(feature, 2));
    await stub.writeFile({ task: 2, path: "src/other.ts", content: "fine\n" }, workerOf(feature, 2));
    expect(await stub.commitTask({ task: 1, key: "k1", summary: "one" }, workerOf(feature, 1))).toMatchObject({
      ok: true,
      value: { committed: true },
    });
    const second = await stub.commitTask({ task: 2, key: "k2", summary: "two" }, workerOf(feature, 2));
    // The worker's own commit: it stays in progress and resolves the conflict itself.
    expect(second).toMatchObject({
      ok: true,
      value: {
        committed: false,
        conflicts: ["src/shared.ts"],
        status: "in_progress",
        conflict: { files: [{ path: "src/shared.ts", ours: "one\n", theirs: "two\n", base: "export const a = 1;\n" }] },
      },
    });
    const task2 = ((await stub.taskDetail(2)) as any).value;
    expect(task2.conflict.files[0].marked).toBe("<<<<<<< feature\none\n=======\ntwo\n>>>>>>> task\n");
    // Nothing of task 2 reached the feature branch.
    expect(((await stub.readFile({ path: "src/shared.ts" })) as any).value.content).toBe("one\n");
    expect((await stub.readFile({ path: "src/other.ts" })) as any).toMatchObject({ ok: false, code: "not_found" });
    // The task's copy is the merge: its own clean change, and the conflicting file marked.
    expect(((await stub.readFile({ task: 2, path: "src/other.ts" })) as any).value.content).toBe("fine\n");
    expect(((await stub.readFile({ task: 2, path: "src/shared.ts" })) as any).value.content).toContain(
      "<<<<<<< feature",
    );
  });

  it("discards a task's overlay leaving no row and no file behind", async () => {
    const { feature, stub } = await begun();
    await stub.writeFile({ task: 1, path: "src/a.ts", content: "a\n" }, workerOf(feature, 1));
    await stub.writeFile({ task: 1, path: "src/shared.ts", content: null }, workerOf(feature, 1));
    const res = await json(api(`/api/features/${feature}/tasks/1/discard`, { method: "POST" }));
    expect(res).toMatchObject({ http: 200, discarded: 2, status: "cancelled" });
    const rows = await runInDurableObject(
      stubOf(feature),
      (_instance, state) => state.storage.sql.exec("SELECT count(*) AS n FROM overlays").one().n,
    );
    expect(rows).toBe(0);
    expect(((await stub.listFiles({ task: 1 })) as any).value.map((f: any) => f.path)).toEqual(["src/shared.ts"]);
    expect((await stub.readFile({ path: "src/a.ts" })) as any).toMatchObject({ ok: false, code: "not_found" });
  });

  it("deleting a file in a task and committing removes it from the tree; a task that changed the file meanwhile meets a delete/modify conflict", async () => {
    const { feature, stub } = await begun();
    await stub.writeFile({ task: 2, path: "src/shared.ts", content: "edited\n" }, workerOf(feature, 2));
    await stub.writeFile({ task: 1, path: "src/shared.ts", content: null }, workerOf(feature, 1));
    expect(await stub.commitTask({ task: 1, key: "d1", summary: "removed" }, workerOf(feature, 1))).toMatchObject({
      ok: true,
      value: { committed: true, diff: { files: [{ path: "src/shared.ts", change: "deleted" }] } },
    });
    expect((await stub.readFile({ path: "src/shared.ts" })) as any).toMatchObject({ ok: false, code: "not_found" });
    expect(await stub.commitTask({ task: 2, key: "d2", summary: "edited" }, workerOf(feature, 2))).toMatchObject({
      ok: true,
      value: { committed: false, conflicts: ["src/shared.ts"] },
    });
  });
});

describe("who may write what, over the API and the tools", () => {
  it("refuses a person writing the plan directly, a chat token starting a task, and an approve token committing", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    const chat = await tokenOf("chat");
    const approver = await tokenOf("approve");
    expect(
      (
        await json(
          api(`/api/features/${f.feature}/plan`, {
            method: "PUT",
            token: approver,
            json: { markdown: "## Tasks\n1. X\n" },
          }),
        )
      ).http,
    ).toBe(403);
    expect((await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST", token: chat }))).http).toBe(
      403,
    );
    expect(
      (await json(api(`/api/features/${f.feature}/tasks/1/commit`, { method: "POST", token: approver, json: {} })))
        .http,
    ).toBe(403);
    expect((await json(api(`/api/features/${f.feature}/tasks/sync`, { method: "POST", token: approver }))).http).toBe(
      403,
    );
    expect(
      (
        await json(
          api("/api/features", {
            method: "POST",
            token: approver,
            json: { name: "x", title: "X", orchestrator: f.planner.name },
          }),
        )
      ).http,
    ).toBe(403);
  });

  it("refuses an agent that is not the orchestrator writing the plan or syncing, and a worker reporting on another task", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n2. Two\n");
    const stub = stubOf(f.feature);
    const stranger = { kind: "agent" as const, name: "stranger" };
    expect(await stub.writePlan("## Tasks\n1. Mine\n", stranger)).toMatchObject({
      ok: false,
      code: "forbidden",
      message: expect.stringContaining(`only the orchestrating agent '${f.planner.name}' writes the plan`),
    });
    expect(await stub.syncTasks(stranger)).toMatchObject({ ok: false, code: "forbidden" });
    await stub.beginTask(1, admin);
    await stub.beginTask(2, admin);
    expect(await stub.reportTask(2, { status: "done", summary: "not mine" }, workerOf(f.feature, 1))).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await stub.approve(undefined, { kind: "agent", name: f.planner.name })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await stub.markBlocked(1, "?", { kind: "agent", name: f.planner.name })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await stub.reportTask(1, { status: "done", summary: "mine" }, workerOf(f.feature, 1))).toMatchObject({
      ok: true,
    });
  });

  it("an orchestrator's plan.write tool refuses a plan without tasks, with its reason", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    const bad = await json(
      api(`/api/features/${f.feature}/plan`, { method: "PUT", json: { markdown: "# No tasks here" } }),
    );
    expect(bad).toMatchObject({
      http: 422,
      error: { code: "tool_refused", message: expect.stringContaining("no '## Tasks' section") },
    });
  });

  it("keeps features inside their project", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    const other = await api(`/api/features/${f.feature}`, { headers: { "x-pantheon-project": "elsewhere" } });
    expect(other.status).toBe(404);
    const listed = await json(api("/api/features", { headers: { "x-pantheon-project": "elsewhere" } }));
    expect(((listed.features ?? []) as any[]).map((x) => x.name)).not.toContain(f.feature);
  });

  it("answers 400 naming the field for a bad feature name, a bad task number and an unknown task", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    expect(
      (
        await json(
          api("/api/features", {
            method: "POST",
            json: { name: "Bad Name", title: "x", orchestrator: f.planner.name },
          }),
        )
      ).error.details.issues[0].path,
    ).toEqual(["name"]);
    expect((await json(api(`/api/features/${f.feature}/tasks/0`))).http).toBe(400);
    expect((await json(api(`/api/features/${f.feature}/tasks/Bad_Key`))).http).toBe(400);
    // A task is also named by its stable key; an unknown one is a 404 that says so.
    expect(await json(api(`/api/features/${f.feature}/tasks/one`))).toMatchObject({ http: 200, number: 1, key: "one" });
    expect(await json(api(`/api/features/${f.feature}/tasks/zero`))).toMatchObject({
      http: 404,
      error: { message: "task 'zero' does not exist (tasks 1–1)" },
    });
    expect(await json(api(`/api/features/${f.feature}/tasks/9`))).toMatchObject({
      http: 404,
      error: { message: "task 9 does not exist (tasks 1–1)" },
    });
    expect((await json(api(`/api/features/${f.feature}/files/content?path=../x`))).http).toBe(400);
    expect(
      (
        await json(
          api("/api/features", {
            method: "POST",
            json: { name: uniqueName("f").slice(0, 30), title: "x", orchestrator: "no-such-agent" },
          }),
        )
      ).http,
    ).toBe(404);
  });
});

describe("a worker's run that fails or ends without committing", () => {
  it("fails the task with the run's error, and a retry starts a new run from a new spec", async () => {
    const f = await approvedFeature("## Tasks\n1. One — do it\n");
    await f.scriptWorkers([{ status: 400, error: "bad request from the model" }]);
    const first = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    const failed = await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "failed",
      "task failed",
    );
    expect(failed.summary).toMatch(/the worker's run failed: model failed/);
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.commit", arguments: { summary: "second try" } }] },
      { content: "ok" },
    ]);
    const second = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    expect(second.runId).not.toBe(first.runId);
    const done = await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "done",
      "task done",
    );
    expect(done.runIds).toEqual([first.runId, second.runId]);
  });

  it("marks the task partial when its worker ends without committing; a person commits it", async () => {
    const f = await approvedFeature("## Tasks\n1. One — do it\n");
    await f.scriptWorkers([
      { toolCalls: [{ name: "fs.write", arguments: { path: "a.txt", content: "a\n" } }] },
      { content: "I wrote a.txt" },
    ]);
    await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" });
    const partial = await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "partial",
      "task partial",
    );
    expect(partial.pending).toMatchObject({ filesChanged: 1 });
    expect(partial.patch).toContain("+++ b/a.txt");
    const committed = await json(
      api(`/api/features/${f.feature}/tasks/1/commit`, {
        method: "POST",
        json: { summary: "Reviewed and committed" },
        headers: { "idempotency-key": "commit-1" },
      }),
    );
    expect(committed).toMatchObject({ http: 200, committed: true, status: "done" });
    const again = await json(
      api(`/api/features/${f.feature}/tasks/1/commit`, {
        method: "POST",
        json: { summary: "Reviewed and committed" },
        headers: { "idempotency-key": "commit-1" },
      }),
    );
    expect(again).toMatchObject({ http: 200, committed: true, status: "done" });
  });
});

describe("feature resolution in the tools", () => {
  it("a worker's tools act on its own feature without naming it; the planner's need a name once there are two", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    const second = uniqueName("feat2").slice(0, 40);
    await api("/api/features", {
      method: "POST",
      json: { name: second, title: "Second", orchestrator: f.planner.name },
    });
    await f.planner.script([{ toolCalls: [{ name: "status", arguments: {} }] }, { content: "?" }]);
    const turn = await f.planner.send("status?");
    const run = await f.planner.run(turn.body.runId);
    const result = run.trace.find((t: any) => t.name === "tool_result");
    expect(result.data.error).toMatch(/several features exist; name one with 'feature': .*/);
    expect(result.data.error).toContain(second);
    // The worker, bound to its task, lists its own feature's files with no feature named.
    await f.scriptWorkers([
      { toolCalls: [{ name: "fs.list", arguments: {} }] },
      { toolCalls: [{ name: "task.commit", arguments: { summary: "looked" } }] },
      { content: "ok" },
    ]);
    await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" });
    await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "done",
      "task done",
    );
  });
});

describe("starting a task again", () => {
  it("finishes a start that was cut off after the task was marked in progress, with one run, and refuses a second start while it runs", async () => {
    const f = await approvedFeature("## Tasks\n1. One — do it\n");
    await f.scriptWorkers([{ delayMs: 200, content: "thinking" }]);
    // The first caller marked the task in progress and was cut off before its worker ran.
    expect(await stubOf(f.feature).beginTask(1, admin)).toMatchObject({ ok: true, value: { attempt: 1 } });
    const started = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    expect(started.http).toBe(202);
    const again = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    expect(again).toMatchObject({
      http: 409,
      error: { message: expect.stringContaining("task 1 is in_progress and cannot become in_progress") },
    });
    const task = await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "partial",
      "task partial",
    );
    expect(task.runIds).toEqual([started.runId]);
    expect(task.attempts).toBe(1);
  });
});

describe("deleting a feature", () => {
  it("removes its files, its index entry and the worker agents made for its tasks", async () => {
    const f = await approvedFeature("## Tasks\n1. One — do it\n");
    await f.scriptWorkers([{ toolCalls: [{ name: "task.commit", arguments: { summary: "ok" } }] }, { content: "ok" }]);
    const started = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "done",
      "task done",
    );
    expect((await api(`/api/agents/${started.worker}`)).status).toBe(200);
    expect((await api(`/api/features/${f.feature}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/features/${f.feature}`)).status).toBe(404);
    expect((await api(`/api/agents/${started.worker}`)).status).toBe(404);
    expect((await api(`/api/agents/${f.planner.name}`)).status).toBe(200);
  });
});

describe("a worker evicted mid-task", () => {
  it("is carried on by its own alarm: the task is done once, its file committed once", async () => {
    const { evict, wakeByAlarmUntilDone } = await import("../runs/eviction-kit");
    const f = await approvedFeature("## Tasks\n1. One — write a.txt #evicted-worker\n");
    // Position-keyed replies: the model call repeated after the eviction gets the same answer.
    const doubleUrl = (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;
    await fetch(`${doubleUrl}/__case/${f.workerModel}/evicted-worker`, {
      method: "POST",
      body: JSON.stringify({
        steps: [
          { delayMs: 300, toolCalls: [{ name: "fs.write", arguments: { path: "a.txt", content: "a\n" } }] },
          { toolCalls: [{ name: "task.commit", arguments: { summary: "wrote a.txt" } }] },
          { content: "done" },
        ],
      }),
    });
    const started = await json(api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" }));
    expect(started.http).toBe(202);
    await evict(started.worker);
    expect(await wakeByAlarmUntilDone(started.worker, started.runId)).toBe("completed");
    const task = await eventually(
      () => json(api(`/api/features/${f.feature}/tasks/1`)),
      (t) => t.status === "done",
      "task done after the eviction",
    );
    expect(task).toMatchObject({
      summary: "wrote a.txt",
      runIds: [started.runId],
      diff: { filesChanged: 1, insertions: 1 },
    });
    expect(((await stubOf(f.feature).readFile({ path: "a.txt" })) as any).value).toMatchObject({
      content: "a\n",
      version: 1,
    });
  });
});

describe("deleting a project", () => {
  it("empties its features' own objects, so a project made again with the same slug has none", async () => {
    const slug = uniqueName("proj");
    const headers = { "x-pantheon-project": slug };
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    expect((await api("/api/agents", { method: "POST", json: { name: "planner" }, headers })).status).toBe(201);
    expect(
      (
        await api("/api/features", {
          method: "POST",
          json: { name: "kept", title: "Kept", orchestrator: "planner", files: { "a.txt": "a\n" } },
          headers,
        })
      ).status,
    ).toBe(201);
    expect((await api(`/api/projects/${slug}`, { method: "DELETE" })).status).toBe(204);
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    expect((await json(api("/api/features", { headers }))).features as any[]).toEqual([]);
    const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`${slug}.kept`));
    expect(await stub.summary()).toMatchObject({ ok: false, code: "not_found" });
  });
});
