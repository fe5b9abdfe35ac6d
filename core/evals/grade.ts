import { Validator } from "@cfworker/json-schema";
import { RE2JS } from "re2js";
import type { Grader } from "./suite";

/** What an agent did with a case: its reply and the tools it called (from the run's trace). */
export interface Observed {
  reply: string;
  toolCalls: Array<{ name: string; arguments: unknown }>;
  /** Why the run did not finish, when it did not. */
  error?: string;
}

export interface Verdict {
  grader: string;
  pass: boolean;
  reason: string;
  /** A judge's score (0–1). */
  score?: number;
}

/** A model judge: the rubric, the question and the answer in, a score and its reason out. */
export type Judge = (request: {
  rubric: string;
  model?: string;
  input: string;
  reply: string;
}) => Promise<{ score: number; reason: string } | { error: string }>;

const clip = (text: string, n = 80) => (text.length > n ? `${text.slice(0, n)}…` : text);
const fold = (text: string, ignoreCase?: boolean) => (ignoreCase ? text.toLowerCase() : text);

/** Every field `want` names has the same value in `got` (deeply; extra fields in `got` are fine). */
function includes(got: unknown, want: unknown): boolean {
  if (want === null || typeof want !== "object") return Object.is(got, want);
  if (Array.isArray(want))
    return Array.isArray(got) && want.length === got.length && want.every((w, i) => includes(got[i], w));
  if (!got || typeof got !== "object" || Array.isArray(got)) return false;
  return Object.entries(want).every(
    ([key, value]) => Object.hasOwn(got, key) && includes((got as Record<string, unknown>)[key], value),
  );
}

/** The first JSON value in a reply: the whole reply, else a fenced ```json block, else the first {…}. */
function jsonIn(reply: string): { ok: true; value: unknown } | { ok: false } {
  const candidates = [
    reply.trim(),
    /```(?:json)?\s*([\s\S]*?)```/.exec(reply)?.[1]?.trim(),
    reply.slice(reply.indexOf("{"), reply.lastIndexOf("}") + 1),
  ];
  for (const text of candidates) {
    if (!text) continue;
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      // try the next reading
    }
  }
  return { ok: false };
}

/**
 * Grades one observed answer with one grader. Deterministic graders answer at once; a judge asks
 * the model through `judge`. A regex runs on RE2 (linear time, whatever the pattern).
 * @example
 * await grade({ contains: "Lisbon", ignoreCase: true }, { reply: "lisbon it is", toolCalls: [] }, judge)
 * // { grader: "contains", pass: true, reason: "the reply contains 'Lisbon'" }
 */
export async function grade(
  grader: Grader,
  observed: Observed,
  input: string,
  judge: Judge,
  defaultJudgeModel?: string,
): Promise<Verdict> {
  const { reply } = observed;
  if ("exact" in grader) {
    const pass = fold(reply.trim(), grader.ignoreCase) === fold(grader.exact.trim(), grader.ignoreCase);
    return {
      grader: "exact",
      pass,
      reason: pass ? "the reply is exactly as expected" : `the reply is '${clip(reply)}', not '${clip(grader.exact)}'`,
    };
  }
  if ("contains" in grader) {
    const pass = fold(reply, grader.ignoreCase).includes(fold(grader.contains, grader.ignoreCase));
    return {
      grader: "contains",
      pass,
      reason: pass
        ? `the reply contains '${clip(grader.contains)}'`
        : `the reply does not contain '${clip(grader.contains)}': '${clip(reply)}'`,
    };
  }
  if ("notContains" in grader) {
    const pass = !fold(reply, grader.ignoreCase).includes(fold(grader.notContains, grader.ignoreCase));
    return {
      grader: "notContains",
      pass,
      reason: pass
        ? `the reply does not contain '${clip(grader.notContains)}'`
        : `the reply contains '${clip(grader.notContains)}'`,
    };
  }
  if ("regex" in grader) {
    let re: RE2JS;
    try {
      re = RE2JS.compile(grader.regex, grader.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (error) {
      return {
        grader: "regex",
        pass: false,
        reason: `the pattern is not RE2 syntax: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const pass = re.matcher(reply).find();
    return {
      grader: "regex",
      pass,
      reason: pass
        ? `the reply matches /${clip(grader.regex)}/`
        : `the reply does not match /${clip(grader.regex)}/: '${clip(reply)}'`,
    };
  }
  if ("schema" in grader) {
    const parsed = jsonIn(reply);
    if (!parsed.ok) return { grader: "schema", pass: false, reason: `the reply holds no JSON: '${clip(reply)}'` };
    const result = new Validator(
      grader.schema as ConstructorParameters<typeof Validator>[0],
      "2020-12",
      false,
    ).validate(parsed.value);
    const first = result.errors.find((e) => e.keyword !== "properties") ?? result.errors[0];
    return {
      grader: "schema",
      pass: result.valid,
      reason: result.valid
        ? "the reply's JSON matches the schema"
        : `the reply's JSON does not match the schema: ${first ? `${first.instanceLocation} ${first.error}` : "invalid"}`,
    };
  }
  if ("tool" in grader) {
    const named = observed.toolCalls.filter((c) => c.name === grader.tool);
    if (!named.length)
      return {
        grader: "tool",
        pass: false,
        reason: `'${grader.tool}' was not called (called: ${observed.toolCalls.map((c) => c.name).join(", ") || "none"})`,
      };
    if (!grader.arguments) return { grader: "tool", pass: true, reason: `'${grader.tool}' was called` };
    const pass = named.some((c) => includes(c.arguments, grader.arguments));
    return {
      grader: "tool",
      pass,
      reason: pass
        ? `'${grader.tool}' was called with ${clip(JSON.stringify(grader.arguments))}`
        : `'${grader.tool}' was called, but with ${clip(JSON.stringify(named[0]!.arguments))}, not ${clip(JSON.stringify(grader.arguments))}`,
    };
  }
  const { rubric, model, passAt } = grader.judge;
  const judged = await judge({ rubric, model: model ?? defaultJudgeModel, input, reply });
  if ("error" in judged) return { grader: "judge", pass: false, reason: `the judge gave no verdict: ${judged.error}` };
  const pass = judged.score >= passAt;
  return {
    grader: "judge",
    pass,
    score: judged.score,
    reason: `judged ${judged.score.toFixed(2)} (passes at ${passAt}): ${clip(judged.reason, 200)}`,
  };
}

/** The prompt a judge model gets, and how its answer is read. */
export function judgePrompt(request: { rubric: string; input: string; reply: string }): string {
  return [
    'You grade an AI agent\'s answer against a rubric. Answer with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.',
    `Rubric: ${request.rubric}`,
    `The person said: ${request.input}`,
    `The agent answered: ${request.reply}`,
  ].join("\n\n");
}

/** A judge model's answer as a score and reason, or why it cannot be read as one. */
export function readJudgement(text: string): { score: number; reason: string } | { error: string } {
  const parsed = jsonIn(text);
  if (!parsed.ok || !parsed.value || typeof parsed.value !== "object")
    return { error: `its answer is not the JSON asked for: '${clip(text)}'` };
  const { score, reason } = parsed.value as { score?: unknown; reason?: unknown };
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1)
    return { error: `its score is not a number from 0 to 1: ${clip(JSON.stringify(score))}` };
  return { score, reason: typeof reason === "string" ? reason : "" };
}
