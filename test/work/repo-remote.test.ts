import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, ensureProject, uniqueName } from "../api/client";
import { json } from "./helpers";

const vars = env as unknown as { GIT_REMOTE_URL: string; GIT_TEST_TOKEN: string };
const remote = () => `${vars.GIT_REMOTE_URL}/acme/app.git`;
const plainStub = (project: string, feature: string) =>
  (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`${project}.${feature}`));
/** runInDurableObject without its generic instance type (FeatureDO's RPC types are too deep for it). */
const inObject: (
  stub: unknown,
  fn: (instance: { beforePushSend?: () => void }, state: DurableObjectState) => unknown,
) => Promise<any> = runInDurableObject as never;

/** The heads the remote advertises (git's smart-HTTP ref list), read with the remote's token. */
async function remoteHeads(): Promise<Record<string, string>> {
  const res = await fetch(`${remote()}/info/refs?service=git-upload-pack`, {
    headers: { authorization: `Basic ${btoa(`x:${vars.GIT_TEST_TOKEN}`)}` },
  });
  const heads: Record<string, string> = {};
  for (const m of (await res.text()).matchAll(/([0-9a-f]{40}) (refs\/heads\/[^\s\u0000]+)/g)) heads[m[2]!] = m[1]!;
  return heads;
}

async function projectWithToken() {
  const project = uniqueName("gitp").slice(0, 30);
  await ensureProject(project);
  const headers = { "x-pantheon-project": project };
  expect(
    (
      await api(`/api/projects/${project}/secrets/GIT_TOKEN`, {
        method: "PUT",
        headers,
        json: { value: vars.GIT_TEST_TOKEN },
      })
    ).status,
  ).toBe(200);
  const planner = await json(api("/api/agents", { method: "POST", headers, json: { name: "planner" } }));
  expect(planner.http).toBe(201);
  return { project, headers };
}

describe("a feature imported from a git remote, pushed back, and proposed as a pull request", () => {
  it("imports at the remote's main with the token from the project's secrets; another project's secret name is not found", async () => {
    const { project, headers } = await projectWithToken();
    const heads = await remoteHeads();
    const name = uniqueName("imp").slice(0, 30);
    const created = await json(
      api("/api/features", {
        method: "POST",
        headers,
        json: {
          name,
          title: "Imported",
          orchestrator: "planner",
          repository: { url: remote(), ref: "main", tokenSecret: "GIT_TOKEN" },
        },
      }),
    );
    expect(created.http).toBe(201);
    const branches = await json(api(`/api/features/${name}/branches`, { headers }));
    expect(branches.base).toMatchObject({ sha: heads["refs/heads/main"], ref: "main", remote: remote() });
    expect((await json(api(`/api/features/${name}/files/content?path=app.txt`, { headers }))).content).toBe("hello\n");
    // A project without that secret: refused with the field named, and no feature left behind.
    const other = uniqueName("gito").slice(0, 30);
    await ensureProject(other);
    await api("/api/agents", { method: "POST", headers: { "x-pantheon-project": other }, json: { name: "planner" } });
    const refused = await json(
      api("/api/features", {
        method: "POST",
        headers: { "x-pantheon-project": other },
        json: {
          name,
          title: "Stolen",
          orchestrator: "planner",
          repository: { url: remote(), tokenSecret: "GIT_TOKEN" },
        },
      }),
    );
    expect(refused).toMatchObject({ http: 400, error: { message: expect.stringContaining("no secret 'GIT_TOKEN'") } });
    expect((await json(api(`/api/features/${name}`, { headers: { "x-pantheon-project": other } }))).http).toBe(404);
    expect(project).not.toBe(other);
  });

  it("an eviction between recording a push and sending it leaves it pending; the retry sends that commit once and the remote has it", async () => {
    const { project, headers } = await projectWithToken();
    const name = uniqueName("push").slice(0, 30);
    expect(
      (
        await json(
          api("/api/features", {
            method: "POST",
            headers,
            json: {
              name,
              title: "Pushed",
              orchestrator: "planner",
              repository: { url: remote(), tokenSecret: "GIT_TOKEN" },
            },
          }),
        )
      ).http,
    ).toBe(201);
    const tip = (await json(api(`/api/features/${name}/commits?limit=1`, { headers }))).commits[0].sha;
    await inObject(plainStub(project, name), (instance, state) => {
      instance.beforePushSend = () => state.abort("test: evicted");
    });
    expect(
      (await api(`/api/features/${name}/push`, { method: "POST", headers, json: {} })).status,
    ).toBeGreaterThanOrEqual(500);
    const pending = await inObject(plainStub(project, name), (_i, state) =>
      state.storage.sql.exec('SELECT id, status, "commit" FROM pushes').toArray(),
    );
    expect(pending).toEqual([expect.objectContaining({ status: "pending", commit: tip })]);
    expect((await remoteHeads())[`refs/heads/pantheon/${name}`]).toBeUndefined();
    const retried = await json(api(`/api/features/${name}/push`, { method: "POST", headers, json: {} }));
    expect(retried).toMatchObject({
      http: 200,
      pushed: true,
      retried: true,
      push: pending[0].id,
      commit: tip,
      branch: `pantheon/${name}`,
    });
    expect((await remoteHeads())[`refs/heads/pantheon/${name}`]).toBe(tip);
    // The remote's main did not move: a feature pushes its own branch.
    const pr = await json(api(`/api/features/${name}/pr`, { method: "POST", headers, json: { title: "Pushed work" } }));
    expect(pr).toMatchObject({ http: 201, number: 7, head: `pantheon/${name}`, base: "main" });
  });

  it("a push to a remote that refuses the token is a clear error, and nothing is marked pushed", async () => {
    const { project, headers } = await projectWithToken();
    await api(`/api/projects/${project}/secrets/BAD_TOKEN`, { method: "PUT", headers, json: { value: "wrong" } });
    const name = uniqueName("bad").slice(0, 30);
    expect(
      (
        await json(
          api("/api/features", {
            method: "POST",
            headers,
            json: {
              name,
              title: "T",
              orchestrator: "planner",
              repository: { url: remote(), tokenSecret: "GIT_TOKEN" },
            },
          }),
        )
      ).http,
    ).toBe(201);
    const refused = await json(
      api(`/api/features/${name}/push`, { method: "POST", headers, json: { tokenSecret: "BAD_TOKEN" } }),
    );
    // The user's mistake, named: a 400 with the secret, not the remote's failure (502).
    expect(refused).toMatchObject({
      http: 400,
      error: { message: expect.stringContaining("refused the credentials in secret BAD_TOKEN (401)") },
    });
    expect(JSON.stringify(refused)).not.toContain("wrong");
    const rows = await inObject(plainStub(project, name), (_i, state) =>
      state.storage.sql.exec("SELECT status FROM pushes").toArray(),
    );
    expect(rows).toEqual([{ status: "failed" }]);
    // A model key (set as a project secret) and Pantheon's own never go to a remote: refused before anything leaves.
    await api(`/api/projects/${project}/secrets/OPENAI_API_KEY`, {
      method: "PUT",
      headers,
      json: { value: "sk-project-model-key" },
    });
    const modelKey = await json(
      api(`/api/features/${name}/push`, {
        method: "POST",
        headers,
        json: { remote: `${vars.GIT_REMOTE_URL}/acme/app.git`, tokenSecret: "OPENAI_API_KEY" },
      }),
    );
    expect(modelKey).toMatchObject({ http: 400, error: { message: expect.stringContaining("never reaches a tool") } });
    expect(JSON.stringify(modelKey)).not.toContain("sk-project-model-key");
    const pantheonOwn = await json(
      api(`/api/features/${name}/push`, { method: "POST", headers, json: { tokenSecret: "PANTHEON_SECRETS_KEY" } }),
    );
    expect(pantheonOwn.http).toBe(400);
  });
});
