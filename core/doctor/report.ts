import { quotaChecks, type QuotaFacts } from "./quotas";
import { defaultModelFrom, resolveModel, secretFix, type Deployment, type ProviderFacts, type ResolvedModel } from "../models";

/**
 * The doctor: what a deployment needs, checked from facts the worker observed (bindings and
 * secrets present or not — never their values — migrations applied, the last Cron Trigger tick).
 * Pure: the worker gathers the facts (workers/api/doctor.ts), this turns them into checks, each
 * problem with the exact command or edit that fixes it.
 */

export type CheckStatus = "ok" | "warn" | "problem";

export interface DoctorCheck {
  /** Stable id, e.g. `binding:AGENT_DO`, `secret:OPENAI_API_KEY`, `model:scout`. */
  id: string;
  area: "durable-objects" | "queues" | "vectorize" | "workers-ai" | "secrets" | "models" | "tool-secrets" | "migrations" | "cron" | "gateways" | "quotas";
  status: CheckStatus;
  message: string;
  /** The command or edit that fixes a problem or a warning. */
  fix?: string;
}

export interface AgentFacts {
  name: string;
  model: { provider: string; name: string; fallback?: { provider: string; name: string } | undefined };
  /** Secret names the agent's HTTP tools and A2A agents put in headers. */
  toolSecretRefs: string[];
  /** Applied migration timestamps of its database, or why they could not be read. */
  migrations: number[] | { error: string };
  telegram?: { botTokenSecret: string; botTokenPresent: boolean; anyChat: boolean; approvers: number };
  email?: { allowedSenders: number };
}

export interface DoctorFacts {
  deployment: Deployment;
  /** The server's own URL as the request reached it (`http://127.0.0.1:8788`): the fixes that call the server use it. */
  origin: string;
  version: string;
  now: number;
  bindings: { AGENT_DO: boolean; REGISTRY: boolean; BUS: boolean; VECTORIZE: boolean; AI: boolean };
  registry: { ok: true } | { ok: false; error: string };
  /** Vectorize's own description of the index (production), or why it could not be read. */
  vectorize?: { dimensions: number | null } | { error: string };
  embedder: { model: string; dimensions: number };
  /** Presence of each secret or var by name. */
  secrets: Record<string, boolean>;
  providers: ProviderFacts;
  /**
   * What the project's agents resolve against when the project sets model settings of its own
   * (core/models project-keys): its keys in place of the deployment's. Absent: `providers`.
   */
  projectProviders?: ProviderFacts;
  /** `PANTHEON_DEFAULT_PROVIDER` as configured. */
  defaultProvider: string | undefined;
  /** Names in `PANTHEON_TOOL_SECRETS` (reserved names already left out); reached by the project `default` only. */
  toolSecrets: string[];
  /** The project's own secrets (names only), the deployment secrets granted to it (set or not), and whether the deployment key is set. */
  projectSecrets: { project: string; own: string[]; granted: { name: string; present: boolean }[]; keySet: boolean };
  /** Journal timestamps (`when`) and tags of the bundled migrations. */
  journals: { agent: { when: number; tag: string }[]; registry: { when: number; tag: string }[] };
  registryMigrations: number[] | { error: string };
  deadLetters: number;
  lastCronTick: number | null;
  /** `TELEGRAM_API_BASE` checked (an error message when it is not usable). */
  telegramApiBase: { ok: true } | { ok: false; error: string };
  agents: AgentFacts[];
  /** Today's spend against the daily caps (core/doctor quotas.ts); absent when it could not be read. */
  quotas?: QuotaFacts;
}

export interface DoctorReport {
  ok: boolean;
  deployment: Deployment;
  version: string;
  checkedAt: number;
  summary: Record<CheckStatus, number>;
  checks: DoctorCheck[];
  /** What each agent's model resolves to here, and why. */
  agents: { name: string; resolvedModel: ResolvedModel }[];
}

const deployFix = "npm run deploy";

/** Migrations in the journal that the database has not applied. */
export function missingMigrations(journal: readonly { when: number; tag: string }[], applied: readonly number[]): string[] {
  const done = new Set(applied.map(Number));
  return journal.filter((entry) => !done.has(entry.when)).map((entry) => entry.tag);
}

/**
 * Builds the report. `ok` is false when any check is a problem; warnings do not fail it.
 * @example
 * const report = buildDoctorReport(facts);
 * if (!report.ok) for (const c of report.checks.filter((c) => c.status === "problem")) console.log(c.message, c.fix);
 */
export function buildDoctorReport(facts: DoctorFacts): DoctorReport {
  const checks: DoctorCheck[] = [];
  const prod = facts.deployment === "production";
  const add = (check: DoctorCheck) => checks.push(check);
  const tomlBinding = (what: string) => `add ${what} to wrangler.toml (${prod ? "[env.production]" : "top level"}), then ${prod ? deployFix : "restart npm start"}`;

  // Durable Objects and queues.
  add(facts.bindings.AGENT_DO ? { id: "binding:AGENT_DO", area: "durable-objects", status: "ok", message: "AGENT_DO (AgentDO) is bound" }
    : { id: "binding:AGENT_DO", area: "durable-objects", status: "problem", message: "AGENT_DO is not bound: no agent can run", fix: tomlBinding('a durable_objects binding name = "AGENT_DO", class_name = "AgentDO"') });
  add(!facts.bindings.REGISTRY ? { id: "binding:REGISTRY", area: "durable-objects", status: "problem", message: "REGISTRY is not bound: no project can be read", fix: tomlBinding('a durable_objects binding name = "REGISTRY", class_name = "RegistryDO"') }
    : facts.registry.ok ? { id: "binding:REGISTRY", area: "durable-objects", status: "ok", message: "REGISTRY (RegistryDO) is bound and answers" }
    : { id: "binding:REGISTRY", area: "durable-objects", status: "problem", message: `REGISTRY is bound but did not answer: ${facts.registry.error}`, fix: deployFix });
  add(facts.bindings.BUS ? { id: "queue:BUS", area: "queues", status: "ok", message: "BUS (queue pantheon-bus) is bound" }
    : { id: "queue:BUS", area: "queues", status: "problem", message: "BUS is not bound: agents cannot ask each other", fix: `npx wrangler queues create pantheon-bus, and ${tomlBinding('a queues producer binding = "BUS", queue = "pantheon-bus"')}` });
  add({
    id: "queue:DLQ",
    area: "queues",
    status: facts.deadLetters > 0 ? "warn" : "ok",
    message: `the dead-letter queue pantheon-bus-dlq is configured at deploy time (wrangler.toml consumer), which a worker cannot observe; ${facts.deadLetters} dead letter(s) recorded in this project`,
    ...(facts.deadLetters > 0 ? { fix: "GET /api/bus lists them; each asker was told" } : { fix: "npx wrangler queues create pantheon-bus-dlq (once, before the first deploy)" }),
  });

  // Vectorize and the embedder.
  const dims = facts.embedder.dimensions;
  const createIndex = `npx wrangler vectorize create pantheon-memory --dimensions=${dims} --metric=cosine`;
  if (!facts.bindings.VECTORIZE) {
    add(prod ? { id: "vectorize", area: "vectorize", status: "problem", message: "VECTORIZE is not bound: memories fall back to each agent's SQLite index", fix: `${createIndex}, and add [[env.production.vectorize]] binding = "VECTORIZE", index_name = "pantheon-memory"` }
      : { id: "vectorize", area: "vectorize", status: "ok", message: "local: memories use each agent's SQLite vector index (Vectorize exists only in production)" });
  } else if (facts.vectorize && "error" in facts.vectorize) {
    add({ id: "vectorize", area: "vectorize", status: "problem", message: `VECTORIZE is bound but could not be described: ${facts.vectorize.error}`, fix: createIndex });
  } else {
    const indexDims = facts.vectorize?.dimensions ?? null;
    add(indexDims === null || indexDims === dims
      ? { id: "vectorize", area: "vectorize", status: "ok", message: `VECTORIZE is bound${indexDims === null ? "" : `, ${indexDims} dimensions`}, matching the embedder ${facts.embedder.model} (${dims})` }
      : { id: "vectorize", area: "vectorize", status: "problem", message: `the Vectorize index has ${indexDims} dimensions but the embedder ${facts.embedder.model} makes ${dims}: upserts will fail`, fix: `${createIndex.replace("pantheon-memory", `pantheon-memory-${dims}`)}, point index_name at it, redeploy, then POST /api/agents/<name>/memories/reembed` });
  }
  if (prod && facts.embedder.model.startsWith("hashed")) {
    add({ id: "embedder", area: "vectorize", status: "warn", message: "memories are embedded by the hashed embedder (words only, no meaning)", fix: 'bind Workers AI ([env.production.ai] binding = "AI") or set EMBEDDINGS_BASE_URL' });
  }

  // Workers AI.
  const aiUsers = facts.agents.filter((a) => a.model.provider === "workers-ai" || a.model.fallback?.provider === "workers-ai").map((a) => a.name);
  add(facts.bindings.AI ? { id: "binding:AI", area: "workers-ai", status: "ok", message: "AI (Workers AI) is bound" }
    : !prod ? { id: "binding:AI", area: "workers-ai", status: aiUsers.length ? "warn" : "ok", message: `local: Workers AI is not bound (production only)${aiUsers.length ? `; ${aiUsers.join(", ")} ask for it` : ""}` }
    : { id: "binding:AI", area: "workers-ai", status: aiUsers.length ? "problem" : "warn", message: `AI is not bound${aiUsers.length ? `: ${aiUsers.join(", ")} ask for workers-ai` : ""}`, fix: 'add [env.production.ai] binding = "AI" to wrangler.toml, then npm run deploy' });

  // Secrets: the admin token and the model keys (presence only).
  add(facts.secrets.PANTHEON_ADMIN_TOKEN ? { id: "secret:PANTHEON_ADMIN_TOKEN", area: "secrets", status: "ok", message: "PANTHEON_ADMIN_TOKEN is set" }
    : { id: "secret:PANTHEON_ADMIN_TOKEN", area: "secrets", status: prod ? "problem" : "warn", message: "PANTHEON_ADMIN_TOKEN is not set: only API tokens open the API", fix: secretFix("PANTHEON_ADMIN_TOKEN", facts.deployment) });
  const defaultModel = defaultModelFrom(facts.defaultProvider);
  const resolvedAgents = facts.agents.map((a) => ({ name: a.name, resolvedModel: resolveModel(a.model, facts.projectProviders ?? facts.providers, facts.deployment) }));
  for (const [secret, provider] of [["OPENAI_API_KEY", "openai"], ["ANTHROPIC_API_KEY", "anthropic"]] as const) {
    const users = facts.agents.filter((a) => a.model.provider === provider || a.model.fallback?.provider === provider).map((a) => a.name);
    const byDefault = defaultModel.provider === provider;
    const present = facts.secrets[secret] || (provider === "openai" && facts.providers.openaiBaseUrl);
    const needed = users.length > 0 || byDefault;
    const who = [...(users.length ? [`agents ${users.join(", ")}`] : []), ...(byDefault ? ["new agents (PANTHEON_DEFAULT_PROVIDER)"] : [])].join(" and ");
    add(present ? { id: `secret:${secret}`, area: "secrets", status: "ok", message: facts.secrets[secret] ? `${secret} is set` : `${secret} is not set; OPENAI_BASE_URL points at an OpenAI-compatible server` }
      : !needed ? { id: `secret:${secret}`, area: "secrets", status: "ok", message: `${secret} is not set (no agent uses ${provider})` }
      : { id: `secret:${secret}`, area: "secrets", status: prod ? "problem" : "warn", message: `${secret} is not set but ${who} use ${provider}${prod ? ": their runs fail" : ": locally they get the offline stand-in"}`, fix: secretFix(secret, facts.deployment) });
  }

  // Models: the default and each agent's.
  const defaultResolved = resolveModel(defaultModel, facts.projectProviders ?? facts.providers, facts.deployment);
  add(prod && defaultModel.provider === "offline" ? { id: "model:default", area: "models", status: "warn", message: "PANTHEON_DEFAULT_PROVIDER is empty: agents created without a model get the offline stand-in", fix: 'set PANTHEON_DEFAULT_PROVIDER = "openai" (or anthropic, workers-ai; "provider:model" names the model) under [env.production.vars], then npm run deploy' }
    : defaultResolved.status === "unavailable" ? { id: "model:default", area: "models", status: "problem", message: `new agents get ${defaultModel.provider} (${defaultModel.name}), which cannot answer: ${defaultResolved.reason}`, fix: defaultResolved.missing?.fix ?? deployFix }
    : { id: "model:default", area: "models", status: "ok", message: `agents created without a model get ${defaultModel.provider} (${defaultModel.name}): ${defaultResolved.reason}` });
  for (const { name, resolvedModel: r } of resolvedAgents) {
    const check: DoctorCheck = { id: `model:${name}`, area: "models", status: "ok", message: `${name} → ${r.provider} (${r.name}${r.key ? `, ${r.key} key` : ""}): ${r.reason}` };
    if (r.status === "unavailable") Object.assign(check, { status: "problem", fix: r.missing?.fix });
    else if (r.status === "stand-in" || r.status === "fallback") Object.assign(check, { status: "warn", fix: r.missing?.fix });
    else if (prod && r.provider === "offline") Object.assign(check, { status: "warn", message: `${name} asks for the offline stand-in (no language model)`, fix: `PATCH /api/agents/${name} {"model":{"provider":"openai","name":"gpt-4o-mini"}}` });
    add(check);
  }

  // Tool secrets: PANTHEON_TOOL_SECRETS (project default), the project's own and the granted ones, by presence only.
  const ps = facts.projectSecrets;
  const implicit = ps.project === "default" ? facts.toolSecrets : [];
  for (const secret of implicit) {
    add(facts.secrets[secret] ? { id: `tool-secret:${secret}`, area: "tool-secrets", status: "ok", message: `${secret} (declared in PANTHEON_TOOL_SECRETS) is set` }
      : { id: `tool-secret:${secret}`, area: "tool-secrets", status: "problem", message: `${secret} is declared in PANTHEON_TOOL_SECRETS but not set: tools that use it fail`, fix: secretFix(secret, facts.deployment) });
  }
  if (!ps.keySet) {
    add({ id: "secret:PANTHEON_SECRETS_KEY", area: "secrets", status: ps.own.length ? "problem" : "warn", message: ps.own.length ? `PANTHEON_SECRETS_KEY is not set: the ${ps.own.length} secret(s) of project ${ps.project} cannot be opened, and tools that use them fail` : "PANTHEON_SECRETS_KEY is not set: projects cannot keep secrets of their own", fix: secretFix("PANTHEON_SECRETS_KEY", facts.deployment) });
  }
  for (const name of ps.own) add({ id: `project-secret:${name}`, area: "tool-secrets", status: "ok", message: `${name} is a secret of project ${ps.project}` });
  for (const grant of ps.granted) {
    add(grant.present ? { id: `project-secret:${grant.name}`, area: "tool-secrets", status: "ok", message: `${grant.name} (a deployment secret granted to project ${ps.project}) is set` }
      : { id: `project-secret:${grant.name}`, area: "tool-secrets", status: "problem", message: `${grant.name} is granted to project ${ps.project} but the deployment does not set it: tools that use it fail`, fix: secretFix(grant.name, facts.deployment) });
  }
  const available = new Set([...implicit, ...ps.own, ...ps.granted.map((g) => g.name)]);
  for (const agent of facts.agents) {
    for (const secret of new Set(agent.toolSecretRefs)) {
      if (!available.has(secret)) {
        const orDeclare = ps.project === "default" ? `, or add ${secret} to PANTHEON_TOOL_SECRETS in wrangler.toml, then ${prod ? deployFix : "restart npm start"}` : "";
        add({ id: `tool-secret:${agent.name}:${secret}`, area: "tool-secrets", status: "problem", message: `${agent.name} sends ${secret} in a header, which is not a secret of project ${ps.project}: the call is refused`, fix: `pantheon secrets set ${secret} --project ${ps.project}${orDeclare}` });
      }
    }
  }

  // Migrations.
  const migrationCheck = (id: string, what: string, journal: { when: number; tag: string }[], applied: number[] | { error: string }): DoctorCheck => {
    if (!Array.isArray(applied)) return { id, area: "migrations", status: "problem", message: `${what}: migrations could not be read (${applied.error})`, fix: deployFix };
    const missing = missingMigrations(journal, applied);
    return missing.length
      ? { id, area: "migrations", status: "problem", message: `${what}: ${missing.length} of ${journal.length} migrations not applied (${missing.join(", ")})`, fix: `${deployFix} (bundled migrations are applied when each Durable Object starts)` }
      : { id, area: "migrations", status: "ok", message: `${what}: all ${journal.length} migrations applied (last ${journal.at(-1)?.tag ?? "none"})` };
  };
  add(migrationCheck("migrations:registry", "the project's registry", facts.journals.registry, facts.registryMigrations));
  for (const agent of facts.agents) add(migrationCheck(`migrations:${agent.name}`, `agent ${agent.name}`, facts.journals.agent, agent.migrations));

  // Cron.
  const age = facts.lastCronTick === null ? null : facts.now - facts.lastCronTick;
  add(age === null
    ? { id: "cron", area: "cron", status: "warn", message: "no Cron Trigger tick seen yet (cron behaviors wake only on it; it fires every minute once deployed)", fix: prod ? 'keep [env.production.triggers] crons = ["* * * * *"] in wrangler.toml, then npm run deploy' : `locally: curl "${facts.origin}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*"` }
    : age > 5 * 60_000
      ? { id: "cron", area: "cron", status: prod ? "problem" : "warn", message: `the last Cron Trigger tick was ${Math.round(age / 60_000)} min ago (it fires every minute)`, fix: 'check [env.production.triggers] crons = ["* * * * *"] in wrangler.toml, then npm run deploy' }
      : { id: "cron", area: "cron", status: "ok", message: `the Cron Trigger last fired ${Math.round(age / 1000)} s ago` });

  // Gateways.
  if (!facts.telegramApiBase.ok) add({ id: "telegram:api-base", area: "gateways", status: "problem", message: facts.telegramApiBase.error, fix: "set TELEGRAM_API_BASE to an https URL, or remove it for the official Bot API" });
  for (const agent of facts.agents) {
    const t = agent.telegram;
    if (t) {
      add(t.botTokenPresent ? { id: `telegram:${agent.name}`, area: "gateways", status: "ok", message: `${agent.name}: Telegram gateway, bot token in ${t.botTokenSecret}` }
        : { id: `telegram:${agent.name}`, area: "gateways", status: "problem", message: `${agent.name}: the Telegram gateway's bot token secret ${t.botTokenSecret} is not a secret of project ${ps.project}: no reply can be sent`, fix: `pantheon secrets set ${t.botTokenSecret} --project ${ps.project}${ps.project === "default" ? ` (or ${secretFix(t.botTokenSecret, facts.deployment)})` : ""}` });
      if (t.anyChat) add({ id: `telegram:${agent.name}:chats`, area: "gateways", status: "warn", message: `${agent.name}: any Telegram chat that finds the bot can start runs`, fix: `PUT /api/agents/${agent.name}/gateways/telegram with allowedChatIds` });
      if (t.approvers === 0) add({ id: `telegram:${agent.name}:approvers`, area: "gateways", status: "warn", message: `${agent.name}: no Telegram user may approve; paused calls wait for the API or the PWA`, fix: `PUT /api/agents/${agent.name}/gateways/telegram with approverUserIds` });
    }
    if (agent.email) add({ id: `email:${agent.name}`, area: "gateways", status: "ok", message: `${agent.name}: email gateway, ${agent.email.allowedSenders} allowed sender rule(s)` });
  }

  // Daily caps: spend today, per project and agent.
  if (facts.quotas) for (const check of quotaChecks(facts.quotas, prod)) add(check);

  const summary = { ok: 0, warn: 0, problem: 0 };
  for (const check of checks) summary[check.status] += 1;
  return { ok: summary.problem === 0, deployment: facts.deployment, version: facts.version, checkedAt: facts.now, summary, checks, agents: resolvedAgents };
}
