import { isModelSetting } from "../models/project-keys";
import { makeSecretDetector, type NamedSecret } from "../redaction";

/** A header (or other) value that names a secret instead of holding it: resolved at call time. */
export interface SecretRef {
  secret: string;
}

export type SecretValues = Readonly<Record<string, string>>;

/** Secret names: UPPER_SNAKE, as `wrangler secret put` names them. */
export const secretNamePattern = /^[A-Z][A-Z0-9_]*$/;

/**
 * Worker secrets no tool ever receives, even when listed in `PANTHEON_TOOL_SECRETS`: Pantheon's
 * own (`PANTHEON_*`, e.g. the admin token) and the model settings (the providers' keys and
 * OPENAI_BASE_URL: a project may set its own, for its agents' model calls only).
 */
export function isReservedSecret(name: string): boolean {
  return name.startsWith("PANTHEON_") || isModelSetting(name);
}

/**
 * The names an operator declared for tools (`PANTHEON_TOOL_SECRETS`, comma-separated), reserved
 * and malformed names left out. Absent or empty = none.
 * @example
 * declaredToolSecrets("AIRTABLE_KEY, GITHUB_TOKEN,PANTHEON_ADMIN_TOKEN"); // ["AIRTABLE_KEY", "GITHUB_TOKEN"]
 */
export function declaredToolSecrets(raw: string | undefined): string[] {
  const names = (raw ?? "").split(",").map((name) => name.trim());
  return [...new Set(names.filter((name) => secretNamePattern.test(name) && !isReservedSecret(name)))];
}

/**
 * Why a tool may not use the secret `name`, or undefined when it may. `declared` is what the tool's
 * project may use (its own secrets, the deployment secrets granted to it); with `project` the
 * reason speaks of that project's secrets, without it of `PANTHEON_TOOL_SECRETS`. The reason names
 * what the project has (`list: false` at call time, where `declared` is only what the agent holds),
 * never a value.
 * @example
 * toolSecretRefusal("OPENAI_API_KEY", ["AIRTABLE_KEY"]);
 * // "secret 'OPENAI_API_KEY' is a model key and never reaches a tool; tools may use: AIRTABLE_KEY"
 * toolSecretRefusal("AIRTABLE_KEY", [], "acme");
 * // "no secret 'AIRTABLE_KEY' in project 'acme' (it has none); set it with `pantheon secrets set AIRTABLE_KEY` …"
 */
export function toolSecretRefusal(
  name: string,
  declared: readonly string[],
  project?: string,
  options: { list?: boolean } = {},
): string | undefined {
  const list = options.list ?? true;
  const allowed = project
    ? declared.length
      ? `project '${project}' has: ${declared.join(", ")}`
      : `project '${project}' has no secrets`
    : declared.length
      ? `tools may use: ${declared.join(", ")}`
      : "no secrets are declared for tools (PANTHEON_TOOL_SECRETS is empty)";
  const reason = (why: string) => (list ? `${why}; ${allowed}` : why);
  if (name.startsWith("PANTHEON_")) return reason(`secret '${name}' is Pantheon's own and never reaches a tool`);
  if (isReservedSecret(name))
    return reason(`secret '${name}' is a model ${name.endsWith("_KEY") ? "key" : "setting"} and never reaches a tool`);
  if (declared.includes(name)) return undefined;
  if (project) {
    const has = list ? ` (${declared.length ? `it has: ${declared.join(", ")}` : "it has none"})` : "";
    return `no secret '${name}' in project '${project}'${has}; set it with \`pantheon secrets set ${name}\` (PUT /api/projects/${project}/secrets/${name})`;
  }
  return declared.length
    ? `secret '${name}' is not declared for tools (PANTHEON_TOOL_SECRETS); ${allowed}`
    : `secret '${name}' is not declared for tools: ${allowed}; add its name there to let tools use it`;
}

export { redactedMark } from "../redaction";

/** Anonymous values (the callers that only hold values) as the detector's named secrets. */
function named(secretValues: Iterable<string>): NamedSecret[] {
  return [...new Set(secretValues)].map((value) => ({ name: "secret", value }));
}

/**
 * Replaces every secret value in `text`, in every form the detector knows (core/redaction: plain,
 * base64, hex, percent-encoded, reversed, split). Every trace write and tool result passes through here.
 * @example
 * redactSecrets("key=s3cr3t", ["s3cr3t"]); // "key=[redacted]"
 */
export function redactSecrets(text: string, secretValues: Iterable<string>): string {
  return makeSecretDetector(named(secretValues)).redact(text);
}

/** `redactSecrets` applied to every string (keys included) of a JSON-like value, e.g. a trace record. */
export function redactDeep<T>(value: T, secretValues: Iterable<string>): T {
  // Nothing to redact (an agent with no secret-bearing tools): the value is kept as it is, unread.
  const values = [...secretValues];
  if (values.length === 0) return value;
  return makeSecretDetector(named(values)).redactDeep(value);
}
