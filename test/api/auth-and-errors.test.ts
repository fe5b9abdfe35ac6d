import { describe, expect, it } from "vitest";
import { api, createAgent, type ErrorBody } from "./client";

describe("auth and error shape", () => {
  it("GET /api/health answers without a token", async () => {
    const res = await api("/api/health", { token: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  it("a request without a token is 401 with the JSON error shape and a request id", async () => {
    const res = await api("/api/agents", { token: null });
    expect(res.status).toBe(401);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("unauthorized");
    expect(body.error.message).toContain("Bearer");
    expect(body.error.requestId).toBeTruthy();
    expect(res.headers.get("x-request-id")).toBe(body.error.requestId);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("a wrong token is 401 and the error never echoes the token", async () => {
    const res = await api("/api/agents", { token: "pt_not-a-real-token" });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain("pt_not-a-real-token");
  });

  it("a malformed Authorization header is 401", async () => {
    const res = await api("/api/agents", { token: null, headers: { authorization: "Basic Zm9vOmJhcg==" } });
    expect(res.status).toBe(401);
  });

  it("every route but health needs the token", async () => {
    const paths = [
      "/api/agents/x",
      "/api/agents/x/messages",
      "/api/agents/x/sessions",
      "/api/agents/x/runs",
      "/api/tokens",
    ];
    for (const path of paths) {
      expect((await api(path, { token: null })).status, path).toBe(401);
    }
  });

  it("the agent WebSocket route needs a token too", async () => {
    const res = await api("/agents/agent-do/default.someone", { token: null, headers: { upgrade: "websocket" } });
    expect(res.status).toBe(401);
  });

  it("an unknown API route is a JSON 404", async () => {
    const res = await api("/api/nothing-here");
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe("not_found");
  });

  it("a body over 64 KiB is 413", async () => {
    const res = await api("/api/agents", { method: "POST", json: { name: "big", description: "x".repeat(70 * 1024) } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).error.code).toBe("payload_too_large");
  });

  it("a body that is not JSON is 400, and a wrong content type is 415", async () => {
    const broken = await api("/api/agents", {
      method: "POST",
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    const wrongType = await api("/api/agents", {
      method: "POST",
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(wrongType.status).toBe(415);
  });

  it("an invalid project name is 400 naming the header", async () => {
    const res = await api("/api/agents", { headers: { "x-pantheon-project": "Not A Slug" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual(["X-Pantheon-Project"]);
  });

  it("projects are isolated: an agent of one project is not visible in another", async () => {
    const agent = await createAgent();
    const other = await api(`/api/agents/${agent.name}`, { headers: { "x-pantheon-project": "elsewhere" } });
    expect(other.status).toBe(404);
  });
});

describe("the bench's echo route", () => {
  it("GET /api/health/echo round-trips through a Durable Object, and only with a token", async () => {
    const res = await api("/api/health/echo?x=ping");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ echo: "ping" });
    expect((await api("/api/health/echo?x=ping", { token: null })).status).toBe(401);
  });
});
