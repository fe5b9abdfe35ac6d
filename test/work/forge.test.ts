import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, ensureProject, uniqueName } from "../api/client";
import { json } from "./helpers";

const vars = env as unknown as { GIT_REMOTE_URL: string; GIT_TEST_TOKEN: string };

/** A project with the remote's token in GIT_TOKEN, a wrong one in OLD_TOKEN, a planner and a feature imported from acme/app.git. */
async function importedFeature() {
  const project = uniqueName("forge").slice(0, 30);
  await ensureProject(project);
  const headers = { "x-pantheon-project": project };
  for (const [name, value] of [
    ["GIT_TOKEN", vars.GIT_TEST_TOKEN],
    ["OLD_TOKEN", "revoked"],
  ])
    expect(
      (await api(`/api/projects/${project}/secrets/${name}`, { method: "PUT", headers, json: { value } })).status,
    ).toBe(200);
  expect((await api("/api/agents", { method: "POST", headers, json: { name: "planner" } })).status).toBe(201);
  const feature = uniqueName("f").slice(0, 30);
  const created = await api("/api/features", {
    method: "POST",
    headers,
    json: {
      name: feature,
      title: "Imported",
      orchestrator: "planner",
      repository: { url: `${vars.GIT_REMOTE_URL}/acme/app.git`, ref: "main", tokenSecret: "GIT_TOKEN" },
    },
  });
  expect(created.status).toBe(201);
  const pr = (body: Record<string, unknown> = {}) =>
    json(api(`/api/features/${feature}/pr`, { method: "POST", headers, json: body }));
  // A token of another project is sent with its own project's header: it reaches for this one by the path.
  const setForge = (body: unknown, token?: string, from = project) =>
    json(
      api(`/api/projects/${project}/forge`, {
        method: "PUT",
        json: body,
        headers: { "x-pantheon-project": from },
        ...(token ? { token } : {}),
      }),
    );
  return { project, headers, feature, pr, setForge };
}

describe("a project's forge: where its pull requests open", () => {
  it("is per project: one on GitHub Enterprise, another on the deployment's GitHub", async () => {
    const a = await importedFeature();
    const b = await importedFeature();
    const before = await json(api(`/api/projects/${a.project}/forge`, { headers: a.headers }));
    expect(before).toMatchObject({ http: 200, kind: "github", configured: false });
    const set = await a.setForge({ kind: "github", apiBase: `${vars.GIT_REMOTE_URL}/ghe/api/v3/` });
    expect(set).toMatchObject({ http: 200, apiBase: `${vars.GIT_REMOTE_URL}/ghe/api/v3`, configured: true });
    expect(await a.pr()).toMatchObject({
      http: 201,
      number: 7,
      url: "https://github.example/ghe/api/v3/repos/acme/app/pulls/7",
    });
    expect(await b.pr()).toMatchObject({
      http: 201,
      number: 7,
      url: "https://github.example/api/repos/acme/app/pulls/7",
    });
    expect((await api(`/api/projects/${a.project}/forge`, { method: "DELETE", headers: a.headers })).status).toBe(204);
    expect(await a.pr()).toMatchObject({ http: 201, url: "https://github.example/api/repos/acme/app/pulls/7" });
  });

  it("opens a Gitea pull request and a GitLab merge request in each one's own shape", async () => {
    const f = await importedFeature();
    expect(await f.setForge({ kind: "gitea", apiBase: `${vars.GIT_REMOTE_URL}/gitea/api/v1` })).toMatchObject({
      http: 200,
    });
    expect(await f.pr()).toMatchObject({
      http: 201,
      number: 8,
      url: "https://gitea.example/gitea/api/v1/repos/acme/app/pulls/8",
    });
    expect(await f.setForge({ kind: "gitlab", apiBase: `${vars.GIT_REMOTE_URL}/gitlab/api/v4` })).toMatchObject({
      http: 200,
    });
    expect(await f.pr()).toMatchObject({
      http: 201,
      number: 9,
      url: "https://gitlab.example/gitlab/api/v4/projects/acme%2Fapp/merge_requests/9",
    });
  });

  it("refuses a private or metadata API base the deployment did not name, beside a public one it takes", async () => {
    const f = await importedFeature();
    const privateBase = await f.setForge({ kind: "github", apiBase: "https://10.0.0.5/api/v3" });
    expect(privateBase.http).toBe(400);
    expect(privateBase.error.message).toBe("apiBase: 10.0.0.5 is in the private range");
    expect(JSON.stringify(privateBase.error)).toContain('"path":["apiBase"]');
    const internal = await f.setForge({ kind: "gitea", apiBase: "https://git.corp.internal/api/v1" });
    expect(internal.error.message).toBe("apiBase: git.corp.internal is not a public host (internal name)");
    const metadata = await f.setForge({ kind: "github", apiBase: "http://169.254.169.254/latest" });
    expect(metadata.http).toBe(400);
    const kind = await f.setForge({ kind: "bitbucket", apiBase: "https://api.bitbucket.org/2.0" });
    expect(kind.http).toBe(400);
    expect(JSON.stringify(kind.error)).toContain("github, gitea, gitlab");
    expect(await f.setForge({ kind: "github", apiBase: "https://github.example.com/api/v3" })).toMatchObject({
      http: 200,
      apiBase: "https://github.example.com/api/v3",
    });
  });

  it("is set only by that project's admin: another project's token and a chat token are refused", async () => {
    const f = await importedFeature();
    const other = uniqueName("other").slice(0, 30);
    await ensureProject(other);
    const otherToken = (
      await json(
        api("/api/tokens", {
          method: "POST",
          headers: { "x-pantheon-project": other },
          json: { name: "o", scope: "admin" },
        }),
      )
    ).token as string;
    const chatToken = (
      await json(api("/api/tokens", { method: "POST", headers: f.headers, json: { name: "c", scope: "chat" } }))
    ).token as string;
    const ownToken = (
      await json(api("/api/tokens", { method: "POST", headers: f.headers, json: { name: "a", scope: "admin" } }))
    ).token as string;
    const body = { kind: "github", apiBase: `${vars.GIT_REMOTE_URL}/ghe/api/v3` };
    const reached = await f.setForge(body, otherToken, other);
    expect(reached.http).toBe(403);
    expect(reached.error.message).toContain(`cannot reach project '${f.project}'`);
    expect((await f.setForge(body, chatToken)).http).toBe(403);
    expect(await f.setForge(body, ownToken)).toMatchObject({ http: 200, configured: true });
  });

  it("names the secret when the forge refuses its token (401), beside the token it takes", async () => {
    const f = await importedFeature();
    const refused = await f.pr({ tokenSecret: "OLD_TOKEN" });
    expect(refused.http).toBe(400);
    expect(refused.error.message).toContain("GitHub refused the credentials in secret OLD_TOKEN (401)");
    expect(JSON.stringify(refused)).not.toContain("revoked");
    expect(await f.pr({ tokenSecret: "GIT_TOKEN" })).toMatchObject({ http: 201 });
  });
});
