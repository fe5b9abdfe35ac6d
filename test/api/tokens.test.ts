import { describe, expect, it } from "vitest";
import { api } from "./client";

describe("API tokens", () => {
  it("a created token works once, is listed without its secret, and stops working when deleted", async () => {
    const project = `tokens-${Date.now().toString(36)}`;
    const headers = { "x-pantheon-project": project };
    const created = await api("/api/tokens", { method: "POST", json: { name: "phone" }, headers });
    expect(created.status).toBe(201);
    const { id, token } = (await created.json()) as { id: string; token: string };
    expect(token).toMatch(/^pt_/);

    expect((await api("/api/agents", { token, headers })).status).toBe(200);

    const list = await api("/api/tokens", { headers });
    const listed = await list.text();
    expect(listed).toContain("phone");
    expect(listed).not.toContain(token);
    expect(JSON.parse(listed).tokens[0]).toEqual(
      expect.objectContaining({ id, name: "phone", lastUsedAt: expect.any(Number) }),
    );

    expect((await api(`/api/tokens/${id}`, { method: "DELETE", headers })).status).toBe(204);
    expect((await api("/api/agents", { token, headers })).status).toBe(401);
  });

  it("a token of one project does not open another project", async () => {
    const created = await api("/api/tokens", {
      method: "POST",
      json: { name: "scoped" },
      headers: { "x-pantheon-project": "proj-a" },
    });
    const { token } = (await created.json()) as { token: string };
    expect((await api("/api/agents", { token, headers: { "x-pantheon-project": "proj-b" } })).status).toBe(401);
  });

  it("a token needs a name, and deleting an unknown token is 404", async () => {
    const res = await api("/api/tokens", { method: "POST", json: {} });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details.issues[0].path).toEqual(["name"]);
    expect((await api(`/api/tokens/${crypto.randomUUID()}`, { method: "DELETE" })).status).toBe(404);
    expect((await api("/api/tokens/not-a-uuid", { method: "DELETE" })).status).toBe(400);
  });
});
