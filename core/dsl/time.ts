/** Durations and cron expressions of behavior triggers, shared by the DSL compiler and the schema. */

const durationPattern = /^(\d{1,12})(ms|s|m|h|d)$/;
const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const maxDurationMs = 366 * unitMs.d;

export const durationExpected = 'a whole number followed by ms, s, m, h or d (e.g. "15m"), at most 366d';

/**
 * Milliseconds of a duration like `"15m"`, or undefined when it is not one.
 * @example
 * parseDuration("1h") // 3_600_000
 */
export function parseDuration(text: string): number | undefined {
  const match = durationPattern.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  return ms > 0 && ms <= maxDurationMs ? ms : undefined;
}

const cronFields = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
] as const;

export const cronExpected =
  "5 fields (minute hour day-of-month month day-of-week) of numbers, *, lists a,b, ranges a-b and steps /n";

/**
 * What is wrong with a 5-field cron expression, or undefined when it is valid.
 * @example
 * cronProblem("0 7 * * *") // undefined
 * cronProblem("0 24 * * *") // "hour 24 is out of range 0-23"
 */
export function cronProblem(text: string): string | undefined {
  const fields = text.trim().split(/\s+/);
  if (text.trim() === "" || fields.length !== 5)
    return `has ${text.trim() === "" ? 0 : fields.length} fields, cron needs 5`;
  for (let i = 0; i < 5; i++) {
    const spec = cronFields[i]!;
    for (const item of fields[i]!.split(",")) {
      const problem = cronItemProblem(item, spec.name, spec.min, spec.max);
      if (problem) return problem;
    }
  }
  return undefined;
}

function cronItemProblem(item: string, name: string, min: number, max: number): string | undefined {
  const match = /^(\*|\d{1,2}(?:-\d{1,2})?)(?:\/(\d{1,2}))?$/.exec(item);
  if (!match) return `${name} '${item}' is not a number, *, range a-b or step /n`;
  const [, range, step] = match;
  if (step !== undefined && (Number(step) < 1 || Number(step) > max)) return `${name} step /${step} must be 1-${max}`;
  if (range === "*") return undefined;
  const [from, to] = range!.split("-").map(Number);
  for (const n of [from, to]) {
    if (n !== undefined && (n < min || n > max)) return `${name} ${n} is out of range ${min}-${max}`;
  }
  if (to !== undefined && from !== undefined && from > to) return `${name} range ${from}-${to} runs backwards`;
  return undefined;
}
