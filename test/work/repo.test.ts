import { env, runInDurableObject, SELF } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { api, ensureProject, uniqueName } from "../api/client";
import { approvedFeature, json, tokenOf } from "./helpers";
import { makeSqliteFs } from "../../durable-objects/feature/repo/sqlite-fs";
import type { FeatureDO } from "../../durable-objects/feature/feature-do";

const stubOf = (feature: string, project = "default") =>
  (env as any).FEATURE_DO.get(
    (env as any).FEATURE_DO.idFromName(`${project}.${feature}`),
  ) as DurableObjectStub<FeatureDO>;
const admin = { kind: "person" as const, id: "admin", scope: "admin" as const };
const workerOf = (feature: string, task: number) => ({ kind: "agent" as const, name: `${feature}-task-${task}` });
const read = async (stub: DurableObjectStub<FeatureDO>, path: string, task?: number) =>
  ((await stub.readFile({ path, ...(task ? { task } : {}) })) as any).value?.content;

/** A feature with three approved, synced tasks, two begun (each on its own branch). */
async function begun(files: Record<string, string>) {
  const f = await approvedFeature("## Tasks\n1. One — first\n2. Two — second\n3. Three — third\n", { files });
  const stub = stubOf(f.feature);
  for (const task of [1, 2]) expect((await stub.beginTask(task, admin)).ok).toBe(true);
  return { ...f, stub };
}

/** runInDurableObject without its generic instance type (FeatureDO's RPC types are too deep for it). */
const armFault: (
  stub: unknown,
  fn: (instance: { beforeRefMove?: () => void }, state: DurableObjectState) => void,
) => Promise<void> = runInDurableObject as never;

const lines = (n: number, edit: Record<number, string> = {}) =>
  Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n") + "\n";

describe("the fs adapter isomorphic-git runs on (the object's SQLite)", () => {
  it("reads what it wrote, lists folders, and answers ENOENT / EEXIST / ENOTEMPTY as Node does", async () => {
    const f = await approvedFeature("## Tasks\n1. One\n");
    await runInDurableObject(stubOf(f.feature), async (_i, state) => {
      const { promises: fs } = makeSqliteFs(drizzle(state.storage) as any);
      await fs.writeFile("/t/a/b.txt", "hello");
      expect(await fs.readFile("/t/a/b.txt", "utf8")).toBe("hello");
      expect([...(await fs.readFile("/t/a/b.txt"))]).toEqual([...new TextEncoder().encode("hello")]);
      expect(await fs.readdir("/t")).toEqual(["a"]);
      expect((await fs.stat("/t/a")).isDirectory()).toBe(true);
      expect((await fs.stat("/t/a/b.txt")).size).toBe(5);
      await expect(fs.readFile("/t/nope")).rejects.toMatchObject({ code: "ENOENT" });
      await expect(fs.mkdir("/t/a")).rejects.toMatchObject({ code: "EEXIST" });
      await expect(fs.rmdir("/t/a")).rejects.toMatchObject({ code: "ENOTEMPTY" });
      await fs.unlink("/t/a/b.txt");
      await fs.rmdir("/t/a");
      expect(await fs.readdir("/t")).toEqual([]);
    });
  });
});

describe("a feature is a git repository; a task is a branch", () => {
  it("starts with an initial commit of its files; a task's commit is a real commit with trailers, merged by a merge commit with both parents", async () => {
    const { feature, stub } = await begun({ "src/app.ts": lines(6) });
    const before = await json(api(`/api/features/${feature}/commits`));
    expect(before.commits).toHaveLength(1);
    expect(before.commits[0]).toMatchObject({ message: "Initial commit\n", parents: [] });
    const branches = await json(api(`/api/features/${feature}/branches`));
    expect(branches.base.sha).toBe(before.commits[0].sha);
    expect(branches.branches.map((b: any) => [b.name, b.task ?? null])).toEqual([
      ["main", null],
      [expect.stringMatching(/^tasks\//), 1],
      [expect.stringMatching(/^tasks\//), 2],
    ]);

    await stub.writeFile(
      { task: 1, path: "src/app.ts", content: lines(6, { 2: "two, by task 1" }) },
      workerOf(feature, 1),
    );
    const done = (await stub.commitTask({ task: 1, key: "c1", summary: "Edit line two" }, workerOf(feature, 1))) as any;
    expect(done).toMatchObject({ ok: true, value: { committed: true, status: "done" } });
    const log = (await json(api(`/api/features/${feature}/commits?limit=5`))).commits;
    expect(log[0]).toMatchObject({ sha: done.value.merge, parents: [before.commits[0].sha, done.value.commit] });
    const task = log.find((c: any) => c.sha === done.value.commit);
    expect(task.message).toMatch(/^Edit line two\n\nFeature: .+\nTask: 1 \(/);
    expect(task).toMatchObject({ author: { name: `${feature}-task-1` }, task: 1 });
    const diff = await json(api(`/api/features/${feature}/commits/${done.value.commit}/diff`));
    expect(diff.files).toEqual([
      expect.objectContaining({ path: "src/app.ts", status: "modified", additions: 1, deletions: 1 }),
    ]);
    expect(diff.files[0].patch).toContain("+two, by task 1");
    // The feature branch's files and the task branch's agree; any ref can be read.
    expect(await read(stub, "src/app.ts")).toBe(lines(6, { 2: "two, by task 1" }));
    expect(
      (await json(api(`/api/features/${feature}/files/content?path=src/app.ts&ref=${before.commits[0].sha}`))).content,
    ).toBe(lines(6));
  });

  it("merges two tasks' edits to different lines of one file with a three-way merge (no conflict)", async () => {
    const { feature, stub } = await begun({ "src/app.ts": lines(12) });
    await stub.writeFile(
      { task: 1, path: "src/app.ts", content: lines(12, { 2: "task 1 was here" }) },
      workerOf(feature, 1),
    );
    await stub.writeFile(
      { task: 2, path: "src/app.ts", content: lines(12, { 11: "task 2 was here" }) },
      workerOf(feature, 2),
    );
    expect(await stub.commitTask({ task: 1, key: "m1", summary: "one" }, workerOf(feature, 1))).toMatchObject({
      ok: true,
      value: { committed: true },
    });
    expect(await stub.commitTask({ task: 2, key: "m2", summary: "two" }, workerOf(feature, 2))).toMatchObject({
      ok: true,
      value: { committed: true },
    });
    expect(await read(stub, "src/app.ts")).toBe(lines(12, { 2: "task 1 was here", 11: "task 2 was here" }));
  });

  it("a conflict is resolved by the worker rewriting the file and committing again; the base moves, so the next change to that file merges cleanly", async () => {
    const { feature, stub } = await begun({ "src/app.ts": lines(12) });
    await stub.writeFile(
      { task: 1, path: "src/app.ts", content: lines(12, { 3: "feature side" }) },
      workerOf(feature, 1),
    );
    await stub.writeFile({ task: 2, path: "src/app.ts", content: lines(12, { 3: "task side" }) }, workerOf(feature, 2));
    await stub.commitTask({ task: 1, key: "r1", summary: "one" }, workerOf(feature, 1));
    const conflicted = (await stub.commitTask({ task: 2, key: "r2", summary: "two" }, workerOf(feature, 2))) as any;
    expect(conflicted.value).toMatchObject({ committed: false, conflicts: ["src/app.ts"] });
    // Committing the marked file as it is is refused, naming the file.
    expect(await stub.commitTask({ task: 2, key: "r3", summary: "two" }, workerOf(feature, 2))).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringContaining("src/app.ts"),
    });
    // The worker rewrites the file (both lines kept) and commits again: the resolution merges.
    await stub.writeFile(
      { task: 2, path: "src/app.ts", content: lines(12, { 3: "feature side and task side" }) },
      workerOf(feature, 2),
    );
    const resolved = (await stub.commitTask(
      { task: 2, key: "r4", summary: "two, resolved" },
      workerOf(feature, 2),
    )) as any;
    expect(resolved).toMatchObject({ ok: true, value: { committed: true, status: "done" } });
    expect(await read(stub, "src/app.ts")).toBe(lines(12, { 3: "feature side and task side" }));
    const resolution = (await json(api(`/api/features/${feature}/commits?limit=3`))).commits.find(
      (c: any) => c.sha === resolved.value.commit,
    );
    expect(resolution.parents).toHaveLength(2);
    // A third task edits the same line after the resolution: no conflict again (the defect was a base that never moved).
    expect((await stub.beginTask(3, admin)).ok).toBe(true);
    await stub.writeFile(
      { task: 3, path: "src/app.ts", content: lines(12, { 3: "rewritten by task 3" }) },
      { kind: "agent", name: `${feature}-task-3` },
    );
    expect(
      await stub.commitTask({ task: 3, key: "r5", summary: "three" }, { kind: "agent", name: `${feature}-task-3` }),
    ).toMatchObject({ ok: true, value: { committed: true } });
    expect(await read(stub, "src/app.ts")).toBe(lines(12, { 3: "rewritten by task 3" }));
  });

  it("a person's conflicting commit blocks the task; the person resolves it over the API (approve-scope tokens may not)", async () => {
    const { feature, stub } = await begun({ "a.txt": "base\n" });
    await stub.writeFile({ task: 1, path: "a.txt", content: "ours\n" }, workerOf(feature, 1));
    await stub.writeFile({ task: 2, path: "a.txt", content: "theirs\n" }, workerOf(feature, 2));
    await stub.commitTask({ task: 1, key: "p1", summary: "one" }, workerOf(feature, 1));
    const blocked = await json(
      api(`/api/features/${feature}/tasks/2/commit`, { method: "POST", json: { summary: "two" } }),
    );
    expect(blocked).toMatchObject({ http: 200, committed: false, status: "blocked", conflicts: ["a.txt"] });
    const detail = await json(api(`/api/features/${feature}/tasks/2`));
    expect(detail.conflict.files).toEqual([
      expect.objectContaining({ path: "a.txt", ours: "ours\n", theirs: "theirs\n", base: "base\n" }),
    ]);
    const approver = await tokenOf("approve");
    expect(
      (
        await json(
          api(`/api/features/${feature}/tasks/2/resolve`, {
            method: "POST",
            token: approver,
            json: { files: [{ path: "a.txt", content: "both\n" }] },
          }),
        )
      ).http,
    ).toBe(403);
    expect(
      await json(api(`/api/features/${feature}/tasks/2/resolve`, { method: "POST", json: { files: [] } })),
    ).toMatchObject({ http: 400 });
    expect(
      await json(
        api(`/api/features/${feature}/tasks/1/resolve`, {
          method: "POST",
          json: { files: [{ path: "a.txt", content: "x\n" }] },
        }),
      ),
    ).toMatchObject({ http: 409 });
    const ok = await json(
      api(`/api/features/${feature}/tasks/2/resolve`, {
        method: "POST",
        json: { files: [{ path: "a.txt", content: "both\n" }] },
      }),
    );
    expect(ok).toMatchObject({ http: 200, committed: true, status: "done" });
    expect(await read(stub, "a.txt")).toBe("both\n");
  });

  it("an eviction between writing a merge's objects and moving its refs leaves every ref and the task's copy as they were; the retry merges", async () => {
    const { feature, stub } = await begun({ "a.txt": "base\n" });
    await stub.writeFile({ task: 1, path: "a.txt", content: "changed\n" }, workerOf(feature, 1));
    const refsBefore = (await json(api(`/api/features/${feature}/branches`))).branches;
    const plain = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${feature}`));
    const arm = (instance: { beforeRefMove?: () => void }, state: DurableObjectState) => {
      instance.beforeRefMove = () => state.abort("test: evicted");
    };
    await armFault(plain, arm);
    await expect(stub.commitTask({ task: 1, key: "e1", summary: "one" }, workerOf(feature, 1))).rejects.toThrow();
    // A stub to an aborted object is broken: the next request gets a new instance from storage.
    const fresh = stubOf(feature);
    expect((await json(api(`/api/features/${feature}/branches`))).branches).toEqual(refsBefore);
    expect(await read(fresh, "a.txt", 1)).toBe("changed\n");
    expect(await read(fresh, "a.txt")).toBe("base\n");
    expect((await json(api(`/api/features/${feature}/tasks/1`))).status).toBe("in_progress");
    // The new instance has no fault: the same commit (same key) goes through once.
    expect(await fresh.commitTask({ task: 1, key: "e1", summary: "one" }, workerOf(feature, 1))).toMatchObject({
      ok: true,
      value: { committed: true },
    });
    expect(await read(fresh, "a.txt")).toBe("changed\n");
  });

  it("a task keeps its branch and its uncommitted work when a re-sync renumbers it (branches are named by the task's key)", async () => {
    const { feature, stub } = await begun({ "a.txt": "base\n" });
    await stub.writeFile({ task: 2, path: "b.txt", content: "from task two\n" }, workerOf(feature, 2));
    await api(`/api/features/${feature}/tasks/1/discard`, { method: "POST" });
    await api(`/api/features/${feature}/plan`, {
      method: "PUT",
      json: { markdown: "## Tasks\n1. Two — second\n2. Three — third\n" },
    });
    await api(`/api/features/${feature}/plan/approve`, { method: "POST", json: {} });
    expect((await json(api(`/api/features/${feature}/tasks/sync`, { method: "POST" }))).http).toBe(200);
    // "Two" is task 1 now; its branch is still tasks/two, and the work it had not committed is still its own.
    const branch = (await json(api(`/api/features/${feature}/branches`))).branches.find(
      (b: any) => b.name === "tasks/two",
    );
    expect(branch).toMatchObject({ task: 1 });
    expect(await read(stub, "b.txt", 1)).toBe("from task two\n");
    const done = (await stub.commitTask(
      { task: 1, key: "rn1", summary: "two, renumbered" },
      workerOf(feature, 2),
    )) as any;
    expect(done).toMatchObject({ ok: true, value: { committed: true } });
    const commit = (await json(api(`/api/features/${feature}/commits?ref=tasks/two&limit=1`))).commits[0];
    expect(commit).toMatchObject({ sha: done.value.commit, task: 1, taskKey: "two" });
    expect(await read(stub, "b.txt")).toBe("from task two\n");
  });

  it("discarding a task drops its branch", async () => {
    const { feature } = await begun({ "a.txt": "base\n" });
    expect((await json(api(`/api/features/${feature}/tasks/1/discard`, { method: "POST" }))).http).toBe(200);
    expect((await json(api(`/api/features/${feature}/branches`))).branches.filter((b: any) => b.task === 1)).toEqual(
      [],
    );
  });
});

describe("the work leaves the repository", () => {
  it("downloads a git bundle, a tar and a zip of the feature branch", async () => {
    const { feature } = await begun({ "src/app.ts": "hello\n" });
    const bundle = await api(`/api/features/${feature}/download?format=bundle`);
    expect(bundle.headers.get("content-type")).toBe("application/x-git-bundle");
    const bytes = new Uint8Array(await bundle.arrayBuffer());
    const text = new TextDecoder().decode(bytes.slice(0, 200));
    expect(text).toMatch(/^# v2 git bundle\n[0-9a-f]{40} HEAD\n[0-9a-f]{40} refs\/heads\/main\n\nPACK/);
    const tar = new Uint8Array(await (await api(`/api/features/${feature}/download?format=tar`)).arrayBuffer());
    expect(new TextDecoder().decode(tar.slice(0, 100))).toContain(`${feature}/src/app.ts`);
    const zip = new Uint8Array(await (await api(`/api/features/${feature}/download?format=zip`)).arrayBuffer());
    expect([...zip.slice(0, 2)]).toEqual([0x50, 0x4b]);
    const refused = await json(api(`/api/features/${feature}/download?format=rar`));
    expect(refused.http).toBe(400);
    expect(JSON.stringify(refused.error.details)).toContain("format");
  });

  it("serves git's smart-HTTP ref advertisement to a token of the project (basic or bearer), and 401 to others", async () => {
    const { feature } = await begun({ "src/app.ts": "hello\n" });
    const chat = await tokenOf("chat");
    const url = `https://pantheon.test/git/default/${feature}.git/info/refs?service=git-upload-pack`;
    const basic = await SELF.fetch(url, { headers: { authorization: `Basic ${btoa(`x:${chat}`)}` } });
    expect(basic.status).toBe(200);
    expect(basic.headers.get("content-type")).toBe("application/x-git-upload-pack-advertisement");
    const body = await basic.text();
    expect(body).toMatch(/^001e# service=git-upload-pack\n0000/);
    expect(body).toContain("HEAD\u0000");
    expect(body).toContain("symref=HEAD:refs/heads/main");
    expect((await SELF.fetch(url, { headers: { authorization: `Bearer ${chat}` } })).status).toBe(200);
    const none = await SELF.fetch(url);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Basic/);
    // Another project's admin token reaches nothing of this project's repository.
    const other = uniqueName("proj").slice(0, 30);
    await ensureProject(other);
    const foreign = await json(
      api("/api/tokens", {
        method: "POST",
        headers: { "x-pantheon-project": other },
        json: { name: "ci", scope: "admin" },
      }),
    );
    expect((await SELF.fetch(url, { headers: { authorization: `Bearer ${foreign.token}` } })).status).toBe(401);
    // A push over git is refused: the work leaves through POST …/push.
    expect(
      (
        await SELF.fetch(`https://pantheon.test/git/default/${feature}.git/info/refs?service=git-receive-pack`, {
          headers: { authorization: `Bearer ${chat}` },
        })
      ).status,
    ).toBe(403);
  });

  it("refuses a push without a remote, a remote that is not a URL or carries credentials, and a push by a chat token", async () => {
    const { feature } = await begun({ "a.txt": "a\n" });
    expect(await json(api(`/api/features/${feature}/push`, { method: "POST", json: {} }))).toMatchObject({
      http: 400,
      error: { message: expect.stringContaining("remote") },
    });
    expect(
      await json(api(`/api/features/${feature}/push`, { method: "POST", json: { remote: "not a url" } })),
    ).toMatchObject({ http: 400 });
    expect(
      await json(
        api(`/api/features/${feature}/push`, { method: "POST", json: { remote: "https://x:y@example.com/a.git" } }),
      ),
    ).toMatchObject({ http: 400 });
    // The outbound guard: a metadata address is refused, not fetched.
    expect(
      await json(
        api(`/api/features/${feature}/push`, { method: "POST", json: { remote: "http://169.254.169.254/a.git" } }),
      ),
    ).toMatchObject({ http: 403 });
    const chat = await tokenOf("chat");
    expect(
      (
        await json(
          api(`/api/features/${feature}/push`, {
            method: "POST",
            token: chat,
            json: { remote: "https://example.com/a.git" },
          }),
        )
      ).http,
    ).toBe(403);
    expect((await json(api(`/api/features/${feature}/commits`, { token: chat }))).http).toBe(200);
  });
});
