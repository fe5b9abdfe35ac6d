import { RE2JS } from "re2js";

/** A compiled deny pattern: `test` is true when the pattern occurs anywhere in the text. */
export interface DenyMatcher {
  test(text: string): boolean;
}

/** What a deny pattern must be, as configuration errors say it. */
export const denyPatternExpected = "a regular expression in RE2 syntax (no backreferences or lookaround)";

export type PatternCheck = { ok: true; matcher: DenyMatcher } | { ok: false; reason: string };

/**
 * Why a pattern RE2 refused cannot run, in words an operator can act on. Only consulted after RE2
 * refused the pattern, so a rough scan (escapes skipped) is enough.
 */
function unsupportedFeature(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<")) {
        return "backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time";
      }
      i++;
      continue;
    }
    if (char === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest.startsWith("=") || rest.startsWith("!"))
        return "lookahead ((?=…), (?!…)) is not supported by the linear-time engine";
      if (rest === "<=" || rest === "<!")
        return "lookbehind ((?<=…), (?<!…)) is not supported by the linear-time engine";
    }
  }
  return undefined;
}

function syntaxReason(pattern: string, error: unknown): string {
  const feature = unsupportedFeature(pattern);
  if (feature) return feature;
  // Compiled again without the case flag only to report: the flag shows up in RE2's message as a `(?i)` prefix.
  let message = error instanceof Error ? error.message : String(error);
  try {
    RE2JS.compile(pattern);
  } catch (plain) {
    if (plain instanceof Error) message = plain.message;
  }
  return `not a valid pattern (RE2 syntax): ${message.replace(/^error parsing regexp: /, "")}`;
}

// Gates are compiled once per run context; the same few patterns recur, so compiled ones are kept.
const cacheSize = 256;
const cache = new Map<string, PatternCheck>();

/**
 * Compiles a deny pattern on RE2 (re2js): matching time is linear in the text whatever the
 * pattern, case-insensitive. Patterns RE2 cannot express (backreferences, lookaround) or that are
 * not valid are refused with the reason; callers refuse them when the gate is configured.
 * @example
 * compileDenyPattern("\\bdrop\\s+table\\b"); // { ok: true, matcher }
 * compileDenyPattern("(a)\\1"); // { ok: false, reason: "backreferences (\\1, \\k<name>) are not supported: …" }
 */
export function compileDenyPattern(pattern: string): PatternCheck {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let check: PatternCheck;
  try {
    const re2 = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    check = { ok: true, matcher: { test: (text) => re2.test(text) } };
  } catch (error) {
    check = { ok: false, reason: syntaxReason(pattern, error) };
  }
  if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
  cache.set(pattern, check);
  return check;
}

/**
 * The deny-pattern gates among `gates` whose pattern cannot run, with their index: what
 * configuration (the API's runtime, a script's gates) refuses.
 * @example
 * denyPatternProblems([{ name: "no-echo", kind: "deny-pattern", pattern: "(a)\\1" }]);
 * // [{ index: 0, message: "gate 'no-echo': backreferences … are not supported: …" }]
 */
export function denyPatternProblems(
  gates: readonly { name: string; kind: string; pattern?: string }[],
): { index: number; message: string }[] {
  const problems: { index: number; message: string }[] = [];
  gates.forEach((gate, index) => {
    if (gate.kind !== "deny-pattern" || gate.pattern === undefined) return;
    const check = compileDenyPattern(gate.pattern);
    if (!check.ok) problems.push({ index, message: `gate '${gate.name}': ${check.reason}` });
  });
  return problems;
}
