import { isModelSetting } from "../models/project-keys";
import { declaredToolSecrets } from "../tools/secrets";

/**
 * What a name is for: a tool's header, a gateway (a Telegram bot token is sent only to the Bot API),
 * or the agent's own model calls (the project's model keys, core/models project-keys).
 */
export type SecretUse = "tool" | "telegram" | "model" | "telemetry";

/** The project settings of its OTLP export (durable-objects/agent/telemetry): the project's own, never a tool's. */
export const isTelemetrySetting = (name: string) =>
  name === "OTEL_EXPORTER_OTLP_ENDPOINT" || name === "OTEL_EXPORTER_OTLP_HEADERS";

/** A worker secret's value: a plain secret (`wrangler secret put`) or a Secrets Store binding (`get()`). */
export async function readDeploymentSecret(env: Record<string, unknown>, name: string): Promise<string | undefined> {
  const bound = env[name];
  if (typeof bound === "string") return bound || undefined;
  if (bound && typeof bound === "object" && typeof (bound as { get?: unknown }).get === "function") {
    const value = await (bound as { get(): Promise<string> }).get();
    return typeof value === "string" && value ? value : undefined;
  }
  return undefined;
}

/**
 * The deployment secrets a project reaches without an explicit grant, kept from before projects had
 * secrets of their own, and only for the project `default`: the names in `PANTHEON_TOOL_SECRETS`
 * (any use) and worker secrets named `TELEGRAM_*` (its Telegram gateways only).
 * @example
 * implicitGrant("default", "AIRTABLE_KEY", "tool", { PANTHEON_TOOL_SECRETS: "AIRTABLE_KEY" }); // true
 * implicitGrant("acme", "AIRTABLE_KEY", "tool", { PANTHEON_TOOL_SECRETS: "AIRTABLE_KEY" });    // false
 */
export function implicitGrant(project: string, name: string, use: SecretUse, env: Record<string, unknown>): boolean {
  if (project !== "default") return false;
  if (
    declaredToolSecrets(typeof env.PANTHEON_TOOL_SECRETS === "string" ? env.PANTHEON_TOOL_SECRETS : undefined).includes(
      name,
    )
  )
    return true;
  return use === "telegram" && /^TELEGRAM_[A-Z0-9_]*$/.test(name) && env[name] !== undefined;
}

/** What a project has to name: its own secrets and the deployment secrets granted to it. */
export interface ProjectSecretNames {
  own: string[];
  granted: string[];
  /** The secrets the project's named model providers call with (core/models providers): never a tool's. */
  modelKeys?: string[];
}

/**
 * Why `project` may not use the secret `name` for `use`, or undefined when it may. The reason names
 * what the project has, never a value and never another project's names.
 * @example
 * projectSecretRefusal("acme", "AIRTABLE_KEY", "tool", { own: ["GITHUB_TOKEN"], granted: [] }, env);
 * // "no secret 'AIRTABLE_KEY' in project 'acme' (it has: GITHUB_TOKEN); set it with `pantheon secrets set AIRTABLE_KEY`"
 */
export function projectSecretRefusal(
  project: string,
  name: string,
  use: SecretUse,
  names: ProjectSecretNames,
  env: Record<string, unknown>,
): string | undefined {
  if (name.startsWith("PANTHEON_")) return `secret '${name}' is Pantheon's own and never reaches a tool`;
  if (isModelSetting(name))
    return `secret '${name}' is a model ${name.endsWith("_KEY") ? "key" : "setting"} and never reaches a tool`;
  if (isTelemetrySetting(name))
    return `secret '${name}' is the project's telemetry export setting and never reaches a tool`;
  if (names.modelKeys?.includes(name))
    return `secret '${name}' is a model key (a provider of project '${project}' calls with it) and never reaches a tool`;
  if (names.own.includes(name) || names.granted.includes(name) || implicitGrant(project, name, use, env))
    return undefined;
  const has = [...names.own, ...names.granted];
  return `no secret '${name}' in project '${project}' (${has.length ? `it has: ${has.join(", ")}` : "it has none"}); set it with \`pantheon secrets set ${name}\` (PUT /api/projects/${project}/secrets/${name})`;
}
