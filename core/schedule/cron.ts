import { cronProblem } from "../dsl/time";

/** Bounds of the five cron fields, in order: minute, hour, day of month, month, day of week. */
const bounds = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
] as const;

/** A parsed cron expression: the allowed values of each field, and which day fields were restricted. */
export interface CronSpec {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Vixie cron: when both day fields are restricted, a day matches if either matches. */
  dayRestricted: boolean;
  weekdayRestricted: boolean;
}

function expand(field: string, min: number, max: number): Set<number> {
  const values = new Set<number>();
  for (const item of field.split(",")) {
    const [range, stepText] = item.split("/") as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    let from = min;
    let to = max;
    if (range !== "*") {
      const [a, b] = range.split("-").map(Number) as [number, number | undefined];
      from = a;
      // "5/15" means from 5 to the end in steps of 15, as in Vixie cron.
      to = b ?? (stepText === undefined ? a : max);
    }
    for (let n = from; n <= to; n += step) values.add(n);
  }
  return values;
}

/**
 * Parses a 5-field cron expression (as validated by core/dsl `cronProblem`). Throws RangeError on an invalid one.
 * @example
 * parseCron("0 7 * * 1-5").hours // Set { 7 }
 */
export function parseCron(expression: string): CronSpec {
  const problem = cronProblem(expression);
  if (problem) throw new RangeError(`cron '${expression}' ${problem}`);
  const fields = expression.trim().split(/\s+/);
  const sets = fields.map((field, i) => expand(field, bounds[i]![0], bounds[i]![1]));
  const weekdays = sets[4]!;
  if (weekdays.has(7)) weekdays.add(0);
  return {
    minutes: sets[0]!,
    hours: sets[1]!,
    days: sets[2]!,
    months: sets[3]!,
    weekdays,
    dayRestricted: !fields[2]!.startsWith("*"),
    weekdayRestricted: !fields[4]!.startsWith("*"),
  };
}

function dayMatches(spec: CronSpec, date: Date): boolean {
  const day = spec.days.has(date.getUTCDate());
  const weekday = spec.weekdays.has(date.getUTCDay());
  if (spec.dayRestricted && spec.weekdayRestricted) return day || weekday;
  return day && weekday;
}

/**
 * True when the minute holding `atMs` (UTC, as Cron Triggers use) matches the expression.
 * @example
 * cronMatches("0 7 * * 1-5", Date.UTC(2026, 0, 5, 7, 0, 30)) // true: Monday 07:00 UTC
 */
export function cronMatches(expression: string | CronSpec, atMs: number): boolean {
  const spec = typeof expression === "string" ? parseCron(expression) : expression;
  const date = new Date(atMs);
  return (
    spec.minutes.has(date.getUTCMinutes()) &&
    spec.hours.has(date.getUTCHours()) &&
    spec.months.has(date.getUTCMonth() + 1) &&
    dayMatches(spec, date)
  );
}

const minuteMs = 60_000;
const dayMs = 86_400_000;

/**
 * The start of the first minute strictly after `afterMs` that matches, or null when none does
 * within about four years (e.g. "0 0 31 2 *").
 * @example
 * nextCronAt("*\/15 * * * *", Date.UTC(2026, 0, 1, 10, 7)) // Date.UTC(2026, 0, 1, 10, 15)
 */
export function nextCronAt(expression: string | CronSpec, afterMs: number): number | null {
  const spec = typeof expression === "string" ? parseCron(expression) : expression;
  let t = Math.floor(afterMs / minuteMs) * minuteMs + minuteMs;
  const limit = afterMs + 4 * 366 * dayMs;
  while (t <= limit) {
    const date = new Date(t);
    if (!spec.months.has(date.getUTCMonth() + 1) || !dayMatches(spec, date)) {
      t = Math.floor(t / dayMs) * dayMs + dayMs;
      continue;
    }
    if (!spec.hours.has(date.getUTCHours())) {
      t = Math.floor(t / 3_600_000) * 3_600_000 + 3_600_000;
      continue;
    }
    if (spec.minutes.has(date.getUTCMinutes())) return t;
    t += minuteMs;
  }
  return null;
}
