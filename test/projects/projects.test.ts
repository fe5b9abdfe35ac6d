import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";

async function createProject(slug: string, title?: string) {
  const res = await api("/api/projects", { method: "POST", json: { slug, ...(title ? { title } : {}) } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as any).project;
}

async function tokenIn(project: string, scope: "chat" | "approve" | "admin") {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name: `${scope} token`, scope },
    headers: { "x-pantheon-project": project },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe("projects are created explicitly", () => {
  it("an unknown project is a 404 naming it on /api, /v1 and /mcp, for the admin token too", async () => {
    const slug = uniqueName("never");
    const headers = { "x-pantheon-project": slug };
    const res = await api("/api/agents", { headers, newProject: false });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toMatchObject({
      code: "project_not_found",
      message: `project '${slug}' does not exist`,
    });
    const created = await api("/api/agents", { method: "POST", json: { name: "scout" }, headers, newProject: false });
    expect(created.status).toBe(404);
    const models = await api("/v1/models", { headers, newProject: false });
    expect(models.status).toBe(404);
    expect(((await models.json()) as any).error).toMatchObject({
      code: "project_not_found",
      message: `project '${slug}' does not exist`,
    });
    const mcp = await api("/mcp", {
      method: "POST",
      headers: { ...headers, accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      newProject: false,
    });
    expect(mcp.status).toBe(404);
    // Nothing was created by asking.
    const list = (await (await api("/api/projects")).json()) as any;
    expect(list.projects.map((p: any) => p.slug)).not.toContain(slug);
  });

  it("without a token, an unknown project is the same 401 as a known one (existence is not told)", async () => {
    const res = await api("/api/agents", {
      token: null,
      headers: { "x-pantheon-project": uniqueName("never") },
      newProject: false,
    });
    expect(res.status).toBe(401);
  });

  it("create, list with agent counts, then delete with its agents", async () => {
    const slug = uniqueName("team");
    const project = await createProject(slug, "The team");
    expect(project).toMatchObject({ slug, title: "The team", agents: 0, createdAt: expect.any(Number) });
    const headers = { "x-pantheon-project": slug };
    for (const name of ["scout", "helper"])
      expect((await api("/api/agents", { method: "POST", json: { name }, headers })).status).toBe(201);
    expect(
      (await api("/api/agents/scout/messages", { method: "POST", json: { content: "my name is Ann" }, headers }))
        .status,
    ).toBe(200);

    const listed = (await (await api("/api/projects")).json()) as any;
    expect(listed.projects[0].slug).toBe("default");
    expect(listed.projects.find((p: any) => p.slug === slug)).toMatchObject({ slug, title: "The team", agents: 2 });

    expect((await api(`/api/projects/${slug}`, { method: "DELETE" })).status).toBe(204);
    expect((await api("/api/agents", { headers, newProject: false })).status).toBe(404);
    const after = (await (await api("/api/projects")).json()) as any;
    expect(after.projects.map((p: any) => p.slug)).not.toContain(slug);
    expect((await api(`/api/projects/${slug}`, { method: "DELETE" })).status).toBe(404);

    // Made again with the same slug, it is empty: the agents' Durable Objects forgot their history.
    await createProject(slug);
    expect(((await (await api("/api/agents", { headers })).json()) as any).agents).toEqual([]);
    expect((await api("/api/agents", { method: "POST", json: { name: "scout" }, headers })).status).toBe(201);
    const history = (await (await api("/api/agents/scout/messages", { headers })).json()) as any;
    expect(history.messages).toEqual([]);
  });

  it("refuses a second project of the same slug, the default one, and a bad slug naming the field", async () => {
    const slug = uniqueName("dup");
    await createProject(slug);
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(409);
    expect((await api("/api/projects", { method: "POST", json: { slug: "default" } })).status).toBe(409);
    const bad = await api("/api/projects", { method: "POST", json: { slug: "Not A Slug" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.issues[0].path).toEqual(["slug"]);
    const gone = await api("/api/projects/default", { method: "DELETE" });
    expect(gone.status).toBe(400);
  });

  it("chat and approve tokens cannot create, list or delete projects; a project's admin token manages only itself", async () => {
    const slug = uniqueName("mine");
    const other = uniqueName("theirs");
    await createProject(slug);
    await createProject(other);
    for (const scope of ["chat", "approve"] as const) {
      const token = await tokenIn(slug, scope);
      const headers = { "x-pantheon-project": slug };
      expect(
        (await api("/api/projects", { method: "POST", json: { slug: uniqueName("x") }, token, headers })).status,
      ).toBe(403);
      expect((await api(`/api/projects/${other}`, { method: "DELETE", token, headers })).status).toBe(403);
      expect((await api("/api/projects", { token, headers })).status).toBe(403);
    }
    const admin = await tokenIn(slug, "admin");
    const headers = { "x-pantheon-project": slug };
    const created = await api("/api/projects", {
      method: "POST",
      json: { slug: uniqueName("x") },
      token: admin,
      headers,
    });
    expect(created.status).toBe(403);
    expect(((await created.json()) as any).error.message).toBe(
      `only the deployment's admin token (PANTHEON_ADMIN_TOKEN) can create projects; this is a token of project '${slug}'`,
    );
    expect((await api(`/api/projects/${other}`, { method: "DELETE", token: admin, headers })).status).toBe(403);
    // Its list names its own project only.
    const list = (await (await api("/api/projects", { token: admin, headers })).json()) as any;
    expect(list.projects.map((p: any) => p.slug)).toEqual([slug]);
    // Sent to another project, the token is not that project's: 401.
    expect((await api("/api/projects", { token: admin, headers: { "x-pantheon-project": other } })).status).toBe(401);
    // The other project is still there.
    expect((await api("/api/agents", { headers: { "x-pantheon-project": other } })).status).toBe(200);
  });
});
