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
 * own (`PANTHEON_*`, e.g. the admin token) and the model providers' keys.
 */
export function isReservedSecret(name: string): boolean {
  return name.startsWith("PANTHEON_") || name === "OPENAI_API_KEY" || name === "ANTHROPIC_API_KEY";
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
 * Why a tool may not use the secret `name`, or undefined when it may. `declared` is the output of
 * `declaredToolSecrets`; the reason names what tools may use, never a value.
 * @example
 * toolSecretRefusal("OPENAI_API_KEY", ["AIRTABLE_KEY"]);
 * // "secret 'OPENAI_API_KEY' is a model key and never reaches a tool; tools may use: AIRTABLE_KEY"
 */
export function toolSecretRefusal(name: string, declared: readonly string[]): string | undefined {
  const allowed = declared.length ? `tools may use: ${declared.join(", ")}` : "no secrets are declared for tools (PANTHEON_TOOL_SECRETS is empty)";
  if (name.startsWith("PANTHEON_")) return `secret '${name}' is Pantheon's own and never reaches a tool; ${allowed}`;
  if (isReservedSecret(name)) return `secret '${name}' is a model key and never reaches a tool; ${allowed}`;
  if (!declared.includes(name)) {
    return declared.length
      ? `secret '${name}' is not declared for tools (PANTHEON_TOOL_SECRETS); ${allowed}`
      : `secret '${name}' is not declared for tools: ${allowed}; add its name there to let tools use it`;
  }
  return undefined;
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
