import { runtimeSecretNames } from "../core/agents";
import { modelSecretNamesOf } from "../durable-objects/agent/runs/models";
import { telemetrySettings } from "../core/telemetry";
import { PantheonError } from "../core/errors";
import {
  makeSecretCipher,
  projectSecretRefusal,
  readDeploymentSecret,
  SecretsKeyError,
  type SecretCipher,
  type SecretUse,
} from "../core/secrets";
import { outboundSettingsFrom, declaredToolSecrets, type OutboundSettings } from "../core/tools";
import { agentStub, registryStub } from "../durable-objects/stubs";
import { gatewayIndex } from "./doors/gateways/index-store";

const vars = (env: Env) => env as unknown as Record<string, unknown>;

/**
 * The cipher of the deployment key (a worker secret, or a Secrets Store binding of the same name).
 * Without a usable key the project-secret routes answer 503 saying how to set one.
 */
export async function cipherOf(env: Env): Promise<SecretCipher> {
  try {
    return makeSecretCipher(await readDeploymentSecret(vars(env), "PANTHEON_SECRETS_KEY"));
  } catch (error) {
    if (error instanceof SecretsKeyError) throw new PantheonError("not_configured", error.message);
    throw error;
  }
}

/**
 * What an agent of `project` may name in its tools' headers: the project's own secrets, the
 * deployment secrets granted to it, and for `default` the names of PANTHEON_TOOL_SECRETS. The
 * configure-time checks (core/agents outbound-check) run against it; given the runtime to check,
 * a runtime naming no secret skips the registry.
 */
export async function projectOutbound(
  env: Env,
  project: string,
  runtime?: Parameters<typeof runtimeSecretNames>[0],
): Promise<OutboundSettings> {
  // A runtime that names no secret needs no names: no round trip to the registry.
  if (runtime && runtimeSecretNames(runtime).length === 0)
    return { ...outboundSettingsFrom(env), toolSecrets: [], project };
  const { own, granted, modelKeys = [] } = await registryStub(env, project).secretNames();
  const implicit = project === "default" ? declaredToolSecrets(env.PANTHEON_TOOL_SECRETS) : [];
  // A named provider's key (core/models providers) is a model key: no tool may name it.
  return {
    ...outboundSettingsFrom(env),
    toolSecrets: [...new Set([...own, ...granted, ...implicit])].filter((name) => !modelKeys.includes(name)),
    project,
  };
}

/** Why `project` may not name `name` for `use` (core/secrets), read from its registry now. */
export async function secretRefusal(
  env: Env,
  project: string,
  name: string,
  use: SecretUse,
): Promise<string | undefined> {
  return projectSecretRefusal(project, name, use, await registryStub(env, project).secretNames(), vars(env));
}

/**
 * The keyed fingerprint of what `name` means in `project`: its own secret's stored one, or that of the
 * granted deployment secret. Null when there is no value, or no key to fingerprint it with.
 */
export async function secretFingerprintOf(env: Env, project: string, name: string): Promise<string | null> {
  const own = await registryStub(env, project).secretFingerprint(name);
  if (own) return own;
  const value = await readDeploymentSecret(vars(env), name);
  if (!value) return null;
  try {
    return await makeSecretCipher(await readDeploymentSecret(vars(env), "PANTHEON_SECRETS_KEY")).fingerprint(value);
  } catch (error) {
    if (error instanceof SecretsKeyError) return null;
    throw error;
  }
}

/** The settings every agent of a project reads (its OTLP export: durable-objects/agent/telemetry), whatever its profile. */
const everyAgentReads = (name: string) => (telemetrySettings as readonly string[]).includes(name);

/**
 * Tells the agents of the project that use `name` (in a tool or A2A header, as their Telegram bot,
 * as a model setting their model reads: core/models project-keys, or an OTLP setting, which every
 * agent reads) that it changed: each forgets the values it opened and reads them again on next use.
 * Agents that do not name it are left asleep; one that comes to name it later reads it fresh (a
 * profile change clears an agent's copies too).
 */
export async function secretsChanged(env: Env, project: string, name: string): Promise<void> {
  const [agents, bots] = await Promise.all([
    registryStub(env, project).listAgents(),
    gatewayIndex(env).list("telegram"),
  ]);
  const users = new Set(
    agents
      .filter(
        (agent) =>
          everyAgentReads(name) ||
          runtimeSecretNames(agent.runtime).includes(name) ||
          modelSecretNamesOf(agent).includes(name),
      )
      .map((agent) => agent.name),
  );
  const ownBots = bots.filter((bot) => bot.project === project && bot.entry.botTokenSecret === name);
  if (ownBots.length) {
    // The bot index keeps each bot's fingerprint current, so one bot stays one project's.
    const botFingerprint = await secretFingerprintOf(env, project, name);
    await Promise.all(
      ownBots.map((bot) => gatewayIndex(env).put("telegram", project, bot.agent, { ...bot.entry, botFingerprint })),
    );
  }
  for (const bot of ownBots) users.add(bot.agent);
  await Promise.all([...users].map(async (agent) => (await agentStub(env, project, agent)).secretsChanged()));
}

/** Whether a Telegram gateway of the project names `name` as its bot token. */
export async function botSecretOfProject(env: Env, project: string, name: string): Promise<boolean> {
  return (await gatewayIndex(env).list("telegram")).some(
    (bot) => bot.project === project && bot.entry.botTokenSecret === name,
  );
}
