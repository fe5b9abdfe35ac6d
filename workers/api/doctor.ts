import agentJournal from "../../migrations/agent/meta/_journal.json";
import registryJournal from "../../migrations/registry/meta/_journal.json";
import { telegramApiBase } from "../../adapters/telegram-bot";
import { buildDoctorReport, type AgentFacts, type DoctorFacts, type DoctorReport } from "../../core/doctor";
import type { EmailConfig, TelegramConfig } from "../../core/gateways";
import { deploymentOf } from "../../core/models";
import { declaredToolSecrets } from "../../core/tools";
import { runtimeSecretNames } from "../../core/agents";
import { implicitGrant, type ProjectSecretNames } from "../../core/secrets";
import { providerFacts } from "../../adapters/llm-choice";
import { embedderFromEnv } from "../../durable-objects/agent/memory/ports";
import { llmConfigFromEnv, llmConfigOfNames } from "../../durable-objects/agent/runs/models";
import { cronIndexName } from "./schedules";
import { quotaReport } from "./quotas";
import { agentStub, registryStub } from "../../durable-objects/stubs";
import { listProjectMcpServers } from "./mcp-project";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const present = (value: unknown) =>
  typeof value === "string" ? value.length > 0 : value !== undefined && value !== null;

/** The Cron Trigger fired: recorded so the doctor can say when it last did. */
export async function noteCronTick(env: Env, at: number): Promise<void> {
  await registryStub(env, cronIndexName).noteCronTick(at);
}

/**
 * Observes the deployment (bindings and secrets by presence, never a value; the project's registry
 * and agents over RPC) and builds the doctor's report (core/doctor). The dead-letter queue and the
 * cron schedule live in wrangler.toml, which a worker cannot read: the report says what it observed
 * instead (dead letters recorded, the last Cron Trigger tick).
 * @example
 * const report = await runDoctor(env, "default", "0.1.0", new URL(request.url).origin); // { ok, summary, checks, agents }
 */
export async function runDoctor(env: Env, project: string, version: string, origin: string): Promise<DoctorReport> {
  const vars = env as unknown as Record<string, unknown>;
  const deployment = deploymentOf(env.PANTHEON_ENV);
  const registry = registryStub(env, project);
  const toolSecrets = declaredToolSecrets(env.PANTHEON_TOOL_SECRETS);
  const names = await registry.secretNames().catch((): ProjectSecretNames => ({ own: [], granted: [] }));
  /** A bot token by presence: the project's own secret, or a deployment secret it reaches that is set. */
  const botPresent = (name: string) =>
    names.own.includes(name) ||
    ((names.granted.includes(name) || implicitGrant(project, name, "telegram", vars)) && present(vars[name]));

  const [reachable, profiles, registryMigrations, counts, lastCronTick, vectorize, quotas, projectMcp] =
    await Promise.all([
      registry.echo("doctor").then(
        () => ({ ok: true as const }),
        (error: unknown) => ({ ok: false as const, error: message(error) }),
      ),
      registry.listAgents().catch(() => []),
      registry.migrationStatus().catch((error: unknown) => ({ error: message(error) })),
      registry.busCounts().catch(() => []),
      registryStub(env, cronIndexName)
        .lastCronTick()
        .catch(() => null),
      env.VECTORIZE
        ? env.VECTORIZE.describe().then(
            (d: unknown) => ({
              dimensions:
                (d as { dimensions?: number }).dimensions ??
                (d as { config?: { dimensions?: number } }).config?.dimensions ??
                null,
            }),
            (error: unknown) => ({ error: message(error) }),
          )
        : Promise.resolve(undefined),
      quotaReport(env, project).catch(() => undefined),
      projectMcpNeedsAuthorising(registry),
    ]);

  const agents: AgentFacts[] = await Promise.all(
    profiles.map(async (profile) => {
      const stub = await agentStub(env, project, profile.name);
      const [migrations, telegram, email, mcp] = await Promise.all([
        stub.migrationStatus().catch((error: unknown) => ({ error: message(error) })),
        stub.gatewayGet("telegram").then(
          (r) => (r.ok ? (r.value as TelegramConfig | null) : null),
          () => null,
        ),
        stub.gatewayGet("email").then(
          (r) => (r.ok ? (r.value as EmailConfig | null) : null),
          () => null,
        ),
        stub.mcpNeedsAuthorising().then(
          (r) => (r.ok ? r.value : []),
          () => [],
        ),
      ]);
      const toolSecretRefs = runtimeSecretNames(profile.runtime);
      return {
        name: profile.name,
        model: profile.model,
        toolSecretRefs,
        migrations,
        ...(telegram
          ? {
              telegram: {
                botTokenSecret: telegram.botTokenSecret,
                botTokenPresent: botPresent(telegram.botTokenSecret),
                anyChat: !telegram.allowedChatIds,
                approvers: telegram.approverUserIds.length,
              },
            }
          : {}),
        ...(email ? { email: { allowedSenders: email.allowedSenders.length } } : {}),
        ...(mcp.length ? { mcpNeedsAuthorising: mcp } : {}),
      };
    }),
  );

  let apiBase: DoctorFacts["telegramApiBase"] = { ok: true };
  try {
    telegramApiBase(env.TELEGRAM_API_BASE, deployment === "production");
  } catch (error) {
    apiBase = { ok: false, error: message(error) };
  }
  const embedder = embedderFromEnv(env);
  const secretNames = [
    "PANTHEON_ADMIN_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "PANTHEON_VAPID_KEY",
    ...toolSecrets,
  ];

  return buildDoctorReport({
    deployment,
    origin,
    version,
    now: Date.now(),
    bindings: {
      AGENT_DO: present(env.AGENT_DO),
      REGISTRY: present(env.REGISTRY),
      BUS: present(env.BUS),
      PUSH: present(env.PUSH),
      VECTORIZE: present(env.VECTORIZE),
      AI: present(env.AI),
    },
    registry: reachable,
    ...(projectMcp.length ? { projectMcpNeedsAuthorising: projectMcp } : {}),
    ...(vectorize ? { vectorize } : {}),
    embedder: { model: embedder.model, dimensions: embedder.dimensions },
    secrets: Object.fromEntries(secretNames.map((name) => [name, present(vars[name])])),
    providers: providerFacts(llmConfigFromEnv(env)),
    projectProviders: providerFacts(llmConfigOfNames(env, names.own)),
    defaultProvider: env.PANTHEON_DEFAULT_PROVIDER,
    toolSecrets,
    projectSecrets: {
      project,
      own: names.own,
      granted: names.granted.map((name) => ({ name, present: present(vars[name]) })),
      keySet: present(vars.PANTHEON_SECRETS_KEY),
    },
    journals: { agent: agentJournal.entries, registry: registryJournal.entries },
    registryMigrations,
    deadLetters: counts.reduce((sum, c) => sum + c.dead, 0),
    lastCronTick,
    telegramApiBase: apiBase,
    agents,
    ...(quotas ? { quotas } : {}),
  });
}

/** The project's OAuth MCP servers that need authorising again (none when the registry cannot say). */
async function projectMcpNeedsAuthorising(
  registry: ReturnType<typeof registryStub>,
): Promise<{ server: string; reason: string }[]> {
  try {
    const { servers } = await listProjectMcpServers(registry);
    return servers.flatMap((server) =>
      "authorisation" in server && server.authorisation.state === "needs_reauthorization"
        ? [{ server: server.name, reason: server.authorisation.reason }]
        : [],
    );
  } catch {
    return [];
  }
}
