import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent, uniqueName } from "../api/client";
import agentJournal from "../../migrations/agent/meta/_journal.json";

/** The newest agent migration, which an agent that has run must have applied. */
const lastAgentMigration = agentJournal.entries.at(-1)!.tag;

describe("GET /api/health?detail=1 (the doctor)", () => {
  it("plain GET /api/health stays public and unchanged", async () => {
    const res = await api("/api/health", { token: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, version: "0.1.0" });
  });

  it("needs the admin scope; a bad detail value is a 400 naming it", async () => {
    expect((await api("/api/health?detail=1", { token: null })).status).toBe(401);
    const chat = (
      (await (await api("/api/tokens", { method: "POST", json: { name: uniqueName("phone") } })).json()) as any
    ).token;
    const forbidden = await api("/api/health?detail=1", { token: chat });
    expect(forbidden.status).toBe(403);
    const bad = await api("/api/health?detail=yes");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.issues[0].path).toEqual(["detail"]);
  });

  it("reports every binding, secret, model and migration it can observe, without any secret value", async () => {
    const project = uniqueName("doc");
    const headers = { "x-pantheon-project": project };
    await api("/api/agents", {
      method: "POST",
      headers,
      json: { name: "claude-fan", model: { provider: "anthropic", name: "claude-haiku-4-5" } },
    });
    await api("/api/agents", { method: "POST", headers, json: { name: "plain" } });
    // The bot token is a secret of this project (the deployment's TELEGRAM_BOT_TOKEN reaches only `default`).
    expect(
      (
        await api(`/api/projects/${project}/secrets/TELEGRAM_BOT_TOKEN`, {
          method: "PUT",
          headers,
          json: { value: "test-bot-token-of-doc" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api("/api/agents/plain/gateways/telegram", {
          method: "PUT",
          headers,
          json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1], allowedChatIds: [1] },
        })
      ).status,
    ).toBe(200);
    const res = await api("/api/health?detail=1", { headers });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const secret of [
      "test-admin-token",
      "sk-test-double-key",
      "secret-airtable-value-123",
      "test-bot-token",
      "test-bot-token-of-doc",
    ])
      expect(text).not.toContain(secret);
    const report = JSON.parse(text);
    const check = (id: string) => report.checks.find((c: any) => c.id === id);
    expect(report).toMatchObject({ deployment: "local", version: "0.1.0" });
    expect(check("binding:AGENT_DO").status).toBe("ok");
    expect(check("binding:REGISTRY")).toMatchObject({
      status: "ok",
      message: "REGISTRY (RegistryDO) is bound and answers",
    });
    expect(check("queue:BUS").status).toBe("ok");
    expect(check("vectorize")).toMatchObject({ status: "ok", message: expect.stringContaining("SQLite") });
    expect(check("secret:OPENAI_API_KEY")).toMatchObject({ status: "ok", message: "OPENAI_API_KEY is set" });
    expect(check("secret:ANTHROPIC_API_KEY")).toMatchObject({
      status: "warn",
      fix: "add ANTHROPIC_API_KEY=… to .dev.vars and restart npm start",
    });
    // PANTHEON_TOOL_SECRETS is project default's; this project's own secrets are reported by name only.
    expect(check("tool-secret:AIRTABLE_KEY")).toBeUndefined();
    expect(check("project-secret:TELEGRAM_BOT_TOKEN")).toEqual({
      id: "project-secret:TELEGRAM_BOT_TOKEN",
      area: "tool-secrets",
      status: "ok",
      message: `TELEGRAM_BOT_TOKEN is a secret of project ${project}`,
    });
    expect(check("model:claude-fan")).toMatchObject({
      status: "warn",
      message: "claude-fan → offline (offline): no ANTHROPIC_API_KEY; offline stand-in (local only)",
    });
    expect(check("model:plain").status).toBe("ok");
    expect(check("migrations:registry").status).toBe("ok");
    expect(check("migrations:claude-fan")).toMatchObject({
      status: "ok",
      message: expect.stringContaining(
        `all ${agentJournal.entries.length} migrations applied (last ${lastAgentMigration})`,
      ),
    });
    expect(check("telegram:plain")).toMatchObject({ status: "ok" });
    expect(check("cron").area).toBe("cron");
    expect(report.agents.map((a: any) => a.name)).toEqual(["claude-fan", "plain"]);
    expect(report.ok).toBe(true);
  });

  it("gives the cron fix with the server's own URL, as the request reached it (no port written in)", async () => {
    const read = async (origin: string) => {
      const res = await SELF.fetch(`${origin}/api/health?detail=1`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      return ((await res.json()) as any).checks.find((c: any) => c.id === "cron");
    };
    const cron = await read("http://127.0.0.1:8791");
    // No tick has been seen in this test run's storage: the warning carries the command that makes one.
    expect(cron).toMatchObject({ status: "warn", message: expect.stringContaining("no Cron Trigger tick seen yet") });
    expect(cron.fix).toBe('locally: curl "http://127.0.0.1:8791/cdn-cgi/handler/scheduled?cron=*+*+*+*+*"');
    expect((await read("http://localhost:9123")).fix).toContain(
      'curl "http://localhost:9123/cdn-cgi/handler/scheduled',
    );
  });

  it("in project default, PANTHEON_TOOL_SECRETS is reported by presence", async () => {
    const report = (await (await api("/api/health?detail=1")).json()) as any;
    expect(report.checks.find((c: any) => c.id === "tool-secret:AIRTABLE_KEY")).toMatchObject({
      status: "ok",
      message: "AIRTABLE_KEY (declared in PANTHEON_TOOL_SECRETS) is set",
    });
  });

  it("covers the agents of the request's project only", async () => {
    const agent = await createAgent();
    const report = (await (
      await api("/api/health?detail=1", { headers: { "x-pantheon-project": uniqueName("empty") } })
    ).json()) as any;
    expect(report.agents).toEqual([]);
    expect(report.checks.find((c: any) => c.id === `model:${agent.name}`)).toBeUndefined();
  });
});
