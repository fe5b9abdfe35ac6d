/** A header (or other) value that names a secret instead of holding it: resolved at call time. */
export interface SecretRef {
  secret: string;
}

export type SecretValues = Readonly<Record<string, string>>;

export const redactedMark = "[redacted]";

/**
 * Replaces every secret value in `text`. Every trace write and tool result passes through here.
 * Longer secrets go first so one secret that contains another is hidden whole.
 * @example
 * redactSecrets("key=s3cr3t", ["s3cr3t"]); // "key=[redacted]"
 */
export function redactSecrets(text: string, secretValues: Iterable<string>): string {
  // Very short values would blank out ordinary words; they are not secrets worth the damage.
  const values = [...new Set(secretValues)].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) out = out.replaceAll(value, redactedMark);
  return out;
}

/** `redactSecrets` applied to every string (keys included) of a JSON-like value, e.g. a trace record. */
export function redactDeep<T>(value: T, secretValues: Iterable<string>): T {
  const values = [...secretValues];
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return redactSecrets(item, values);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [redactSecrets(key, values), walk(inner)]));
    }
    return item;
  };
  return walk(value) as T;
}
