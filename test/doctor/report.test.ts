import { describe, expect, it } from "vitest";
import { buildDoctorReport, missingMigrations, type DoctorFacts } from "../../core/doctor";

const journal = [
  { when: 1, tag: "0000_init" },
  { when: 2, tag: "0001_next" },
];

/** A healthy production deployment; each test breaks one thing. */
function healthy(): DoctorFacts {
  return {
    deployment: "production",
    origin: "https://pantheon.example.workers.dev",
    version: "0.1.0",
    now: 10 * 60_000,
    bindings: { AGENT_DO: true, REGISTRY: true, BUS: true, VECTORIZE: true, AI: true },
    registry: { ok: true },
    vectorize: { dimensions: 384 },
    embedder: { model: "workers-ai:@cf/baai/bge-small-en-v1.5", dimensions: 384 },
    secrets: {
      PANTHEON_ADMIN_TOKEN: true,
      OPENAI_API_KEY: true,
      ANTHROPIC_API_KEY: false,
      AIRTABLE_KEY: true,
      PANTHEON_VAPID_KEY: true,
    },
    providers: { openaiApiKey: true, openaiBaseUrl: false, anthropicApiKey: false, workersAi: true },
    defaultProvider: "openai",
    toolSecrets: ["AIRTABLE_KEY"],
    projectSecrets: { project: "default", own: [], granted: [], keySet: true },
    journals: { agent: journal, registry: journal },
    registryMigrations: [1, 2],
    deadLetters: 0,
    lastCronTick: 10 * 60_000 - 30_000,
    telegramApiBase: { ok: true },
    agents: [
      {
        name: "scout",
        model: { provider: "openai", name: "gpt-4o-mini" },
        toolSecretRefs: ["AIRTABLE_KEY"],
        migrations: [1, 2],
      },
    ],
  };
}

const byId = (facts: DoctorFacts, id: string) => buildDoctorReport(facts).checks.find((c) => c.id === id);

describe("the doctor's report", () => {
  it("a healthy production deployment has no problem", () => {
    const report = buildDoctorReport(healthy());
    expect(report.ok).toBe(true);
    expect(report.summary.problem).toBe(0);
    expect(report.checks.filter((c) => c.status !== "ok")).toEqual([]);
    expect(report.agents).toEqual([
      { name: "scout", resolvedModel: expect.objectContaining({ provider: "openai", status: "ok" }) },
    ]);
  });

  it("says whether push notifications are on: the VAPID key set is ok, missing is a warning with the command", () => {
    expect(buildDoctorReport(healthy()).checks.find((c) => c.id === "secret:PANTHEON_VAPID_KEY")).toMatchObject({
      status: "ok",
      message: "push notifications are on: PANTHEON_VAPID_KEY is set",
    });
    const facts = healthy();
    facts.secrets.PANTHEON_VAPID_KEY = false;
    const report = buildDoctorReport(facts);
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.id === "secret:PANTHEON_VAPID_KEY")).toMatchObject({
      status: "warn",
      message: expect.stringContaining("push notifications are off: PANTHEON_VAPID_KEY is not set"),
      fix: expect.stringContaining("npm run deploy -- --setup"),
    });
  });

  it("push on without its queue bound is a problem naming the queue; control: bound, it is ok", () => {
    const facts = healthy();
    facts.bindings.PUSH = false;
    const report = buildDoctorReport(facts);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === "secret:PANTHEON_VAPID_KEY")).toMatchObject({
      status: "problem",
      message: expect.stringContaining("PUSH (queue pantheon-push) is not bound"),
      fix: expect.stringContaining("npx wrangler queues create pantheon-push"),
    });
    facts.bindings.PUSH = true;
    expect(buildDoctorReport(facts).checks.find((c) => c.id === "secret:PANTHEON_VAPID_KEY")).toMatchObject({
      status: "ok",
    });
  });

  it("a missing model key that an agent needs is a problem with the exact command, and the agent's model says why", () => {
    const facts = healthy();
    facts.secrets.OPENAI_API_KEY = false;
    facts.providers.openaiApiKey = false;
    const report = buildDoctorReport(facts);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === "secret:OPENAI_API_KEY")).toEqual({
      id: "secret:OPENAI_API_KEY",
      area: "secrets",
      status: "problem",
      message:
        "OPENAI_API_KEY is not set but agents scout and new agents (PANTHEON_DEFAULT_PROVIDER) use openai: their runs fail",
      fix: "npx wrangler secret put OPENAI_API_KEY --env production",
    });
    expect(report.checks.find((c) => c.id === "model:scout")).toMatchObject({
      status: "problem",
      message: expect.stringContaining("provider 'openai' needs the secret OPENAI_API_KEY"),
      fix: "npx wrangler secret put OPENAI_API_KEY --env production",
    });
    expect(report.checks.find((c) => c.id === "model:default")).toMatchObject({ status: "problem" });
    expect(byId(facts, "secret:ANTHROPIC_API_KEY")).toMatchObject({
      status: "ok",
      message: "ANTHROPIC_API_KEY is not set (no agent uses anthropic)",
    });
  });

  it("bindings: Durable Objects, the queue, Vectorize and its dimensions against the embedder's", () => {
    const facts = healthy();
    facts.bindings.BUS = false;
    facts.bindings.AGENT_DO = false;
    facts.vectorize = { dimensions: 768 };
    const report = buildDoctorReport(facts);
    expect(report.checks.find((c) => c.id === "queue:BUS")).toMatchObject({
      status: "problem",
      fix: expect.stringContaining("npx wrangler queues create pantheon-bus"),
    });
    expect(report.checks.find((c) => c.id === "binding:AGENT_DO")).toMatchObject({ status: "problem" });
    expect(report.checks.find((c) => c.id === "vectorize")).toMatchObject({
      status: "problem",
      message:
        "the Vectorize index has 768 dimensions but the embedder workers-ai:@cf/baai/bge-small-en-v1.5 makes 384: upserts will fail",
      fix: expect.stringContaining(
        "npx wrangler vectorize create pantheon-memory-384 --dimensions=384 --metric=cosine",
      ),
    });
    const unbound = healthy();
    unbound.bindings.VECTORIZE = false;
    expect(byId(unbound, "vectorize")).toMatchObject({
      status: "problem",
      fix: expect.stringContaining("npx wrangler vectorize create pantheon-memory --dimensions=384 --metric=cosine"),
    });
    expect(byId(unbound, "queue:DLQ")).toMatchObject({
      status: "ok",
      message: expect.stringContaining("cannot observe"),
    });
  });

  it("tool secrets declared but missing, and tools naming undeclared secrets, are problems", () => {
    const facts = healthy();
    facts.secrets.AIRTABLE_KEY = false;
    facts.agents[0]!.toolSecretRefs.push("GITHUB_TOKEN");
    const report = buildDoctorReport(facts);
    expect(report.checks.find((c) => c.id === "tool-secret:AIRTABLE_KEY")).toMatchObject({
      status: "problem",
      fix: "npx wrangler secret put AIRTABLE_KEY --env production",
    });
    expect(report.checks.find((c) => c.id === "tool-secret:scout:GITHUB_TOKEN")).toMatchObject({
      status: "problem",
      fix: expect.stringContaining("PANTHEON_TOOL_SECRETS"),
    });
  });

  it("another project: its own and granted secrets by name only; PANTHEON_TOOL_SECRETS does not reach it; a tool naming a secret it lacks is a problem", () => {
    const facts = healthy();
    facts.projectSecrets = {
      project: "acme",
      own: ["GITHUB_TOKEN"],
      granted: [{ name: "SHARED_KEY", present: false }],
      keySet: true,
    };
    facts.agents[0]!.toolSecretRefs = ["GITHUB_TOKEN", "AIRTABLE_KEY"];
    const report = buildDoctorReport(facts);
    expect(report.checks.find((c) => c.id === "project-secret:GITHUB_TOKEN")).toEqual({
      id: "project-secret:GITHUB_TOKEN",
      area: "tool-secrets",
      status: "ok",
      message: "GITHUB_TOKEN is a secret of project acme",
    });
    expect(report.checks.find((c) => c.id === "project-secret:SHARED_KEY")).toMatchObject({
      status: "problem",
      fix: "npx wrangler secret put SHARED_KEY --env production",
    });
    // AIRTABLE_KEY is default's (PANTHEON_TOOL_SECRETS): acme's tool naming it is refused; GITHUB_TOKEN, its own, is not.
    expect(report.checks.find((c) => c.id === "tool-secret:scout:AIRTABLE_KEY")).toMatchObject({
      status: "problem",
      fix: "pantheon secrets set AIRTABLE_KEY --project acme",
    });
    expect(report.checks.find((c) => c.id === "tool-secret:scout:GITHUB_TOKEN")).toBeUndefined();
    expect(report.checks.find((c) => c.id === "tool-secret:AIRTABLE_KEY")).toBeUndefined();
    const noKey = healthy();
    noKey.projectSecrets = { project: "acme", own: ["GITHUB_TOKEN"], granted: [], keySet: false };
    expect(byId(noKey, "secret:PANTHEON_SECRETS_KEY")).toMatchObject({
      status: "problem",
      fix: "npx wrangler secret put PANTHEON_SECRETS_KEY --env production",
    });
  });

  it("migrations not applied, a stale cron and a missing bot token are problems", () => {
    const facts = healthy();
    facts.agents[0]!.migrations = [1];
    facts.registryMigrations = { error: "boom" };
    facts.lastCronTick = 0;
    facts.agents[0]!.telegram = {
      botTokenSecret: "TELEGRAM_BOT_TOKEN",
      botTokenPresent: false,
      anyChat: true,
      approvers: 0,
    };
    const report = buildDoctorReport(facts);
    expect(report.checks.find((c) => c.id === "migrations:scout")).toMatchObject({
      status: "problem",
      message: "agent scout: 1 of 2 migrations not applied (0001_next)",
    });
    expect(report.checks.find((c) => c.id === "migrations:registry")).toMatchObject({ status: "problem" });
    expect(report.checks.find((c) => c.id === "cron")).toMatchObject({
      status: "problem",
      message: "the last Cron Trigger tick was 10 min ago (it fires every minute)",
    });
    expect(report.checks.find((c) => c.id === "telegram:scout")).toMatchObject({
      status: "problem",
      fix: "pantheon secrets set TELEGRAM_BOT_TOKEN --project default (or npx wrangler secret put TELEGRAM_BOT_TOKEN --env production)",
    });
    expect(report.checks.find((c) => c.id === "telegram:scout:chats")?.status).toBe("warn");
    expect(missingMigrations(journal, [2])).toEqual(["0000_init"]);
  });

  it("locally, absent production parts are fine and a missing key is a warning (the stand-in answers)", () => {
    const facts = healthy();
    Object.assign(facts, {
      deployment: "local",
      origin: "http://127.0.0.1:8791",
      vectorize: undefined,
      lastCronTick: null,
      defaultProvider: "",
    });
    facts.bindings = { ...facts.bindings, VECTORIZE: false, AI: false };
    facts.secrets.OPENAI_API_KEY = false;
    facts.providers = { openaiApiKey: false, openaiBaseUrl: false, anthropicApiKey: false, workersAi: false };
    const report = buildDoctorReport(facts);
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.id === "secret:OPENAI_API_KEY")).toMatchObject({
      status: "warn",
      fix: "add OPENAI_API_KEY=… to .dev.vars and restart npm start",
    });
    expect(report.checks.find((c) => c.id === "model:scout")).toMatchObject({
      status: "warn",
      message: "scout → offline (offline): no OPENAI_API_KEY; offline stand-in (local only)",
    });
    expect(report.checks.find((c) => c.id === "vectorize")?.status).toBe("ok");
    expect(report.checks.find((c) => c.id === "cron")?.status).toBe("warn");
    // The fix calls this server where it runs, on its own port, at the path the asset layer lets through.
    expect(report.checks.find((c) => c.id === "cron")?.fix).toBe(
      'locally: curl "http://127.0.0.1:8791/cdn-cgi/handler/scheduled?cron=*+*+*+*+*"',
    );
  });
});
