import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import type { MemoryItem, SlashDates } from "./types";

const dayMs = 86_400_000;
const months = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const numbers: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  couple: 2,
  few: 3,
};

/** When the thing a memory tells happened: `occurredAt`, or when it was stored for a timeless one. */
export function happenedAt(item: Pick<MemoryItem, "createdAt" | "occurredAt">): number {
  return item.occurredAt ?? item.createdAt;
}

/** The earliest epoch-millisecond number taken as milliseconds; below it a number is most likely seconds. */
const smallestMilliseconds = 100_000_000_000; // 1973-03-03

/**
 * `occurredAt` as the API and imports accept it: an ISO 8601 date ("2024-05-03", midnight UTC), a
 * date-time with a time zone ("2024-05-03T18:30:00Z", "…+02:00"), or epoch milliseconds. Parsed to
 * epoch milliseconds. A number that reads as seconds is refused with a hint rather than stored as 1970.
 *
 * @example
 * occurredAtSchema.parse("2024-05-03") // 1714694400000
 */
export const occurredAtSchema = lazySchema(() =>
  z.union(
    [
      z
        .number()
        .int()
        .min(
          smallestMilliseconds,
          "epoch milliseconds after 1973 (this looks like seconds: multiply by 1000), or an ISO 8601 date such as 1969-07-20",
        )
        .max(253_402_300_799_999, "a date before the year 10000"),
      z.iso.date().transform((value) => Date.parse(`${value}T00:00:00Z`)),
      z.iso.datetime({ offset: true, local: false }).transform((value) => Date.parse(value)),
    ],
    {
      error: "an ISO 8601 date (2024-05-03), a date-time with a time zone (2024-05-03T18:30:00Z) or epoch milliseconds",
    },
  ),
);

/**
 * When a thing said at `saidAt` happened, from the time words of the sentence: "yesterday", "last
 * night", "last weekend", "on Sunday", "three days ago", "last week", "last month". Without such
 * words it happened when it was said. Only clear past references move the time; "next week" does not.
 *
 * @example
 * occurredAtOf("We moved to Lisbon last weekend", Date.UTC(2024, 4, 15)) // the Saturday before, 2024-05-11
 */
export function occurredAtOf(text: string, saidAt: number): number {
  const t = text.toLowerCase();
  let match: RegExpMatchArray | null;
  if (/\b(yesterday|last night)\b/.test(t)) return saidAt - dayMs;
  if (
    (match = t.match(
      /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few) (day|week|month|year)s? ago\b/,
    ))
  ) {
    const n = Number(match[1]) || numbers[match[1]!.replace(/ of$/, "")] || 1;
    const unit = { day: 1, week: 7, month: 30, year: 365 }[match[2] as "day"];
    return saidAt - n * unit * dayMs;
  }
  if (/\blast weekend\b/.test(t)) return previousWeekday(saidAt, 6);
  if ((match = t.match(/\b(?:on|last) (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/)))
    return previousWeekday(saidAt, weekdays.indexOf(match[1]!));
  if (/\blast week\b/.test(t)) return saidAt - 7 * dayMs;
  if (/\blast month\b/.test(t)) return saidAt - 30 * dayMs;
  return saidAt;
}

/** The last `weekday` (0 = Sunday) strictly before the day of `at`, same time of day. */
function previousWeekday(at: number, weekday: number): number {
  const today = new Date(at).getUTCDay();
  const back = (today - weekday + 7) % 7 || 7;
  return at - back * dayMs;
}

/** What a question says about time: the period it asks about, and whether it asks about now or about when. */
export interface TemporalCue {
  /**
   * The period a question about when names ("When did I move, in 2022?"), epoch ms, `to` exclusive:
   * its memories are preferred. Only a question about when gets one; for any other the date is
   * words of the question ("What match did Kevin watch in 2017?" is answered by the turn that says 2017).
   */
  range?: { from: number; to: number };
  /** The period the question names, about when or not; `range` is this for a question about when. */
  named?: { from: number; to: number };
  /** "now", "currently", "these days", "current", "still", "latest", "recently": the newest fact should win. */
  current: boolean;
  /** "When did …", "what date …", "which year …", "how long ago …": the answer is a time. */
  asksWhen: boolean;
  /** The question without the period's words, for the searches within the period (the whole question is searched too). */
  rest: string;
}

const monthNames =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
const monthIndex = (name: string) => months.findIndex((m) => name.toLowerCase().startsWith(m.slice(0, 3)));
const ordinal = "(\\d{1,2})(?:st|nd|rd|th)?";

/** A day date in the common written forms, as [from, to) of that day; null when it is none or not a real day. */
function dayDate(query: string, slashDates: SlashDates): { match: RegExpMatchArray; day: number } | null {
  const day = (y: number, m: number, d: number) => {
    const at = Date.UTC(y, m, d);
    // 31.02.2024 is no day: Date.UTC would roll it into March.
    return m >= 0 && m < 12 && d >= 1 && new Date(at).getUTCDate() === d ? at : null;
  };
  const forms: Array<[RegExp, (m: RegExpMatchArray) => number | null]> = [
    // 2024-01-10
    [/\b(\d{4})-(\d{1,2})-(\d{1,2})\b/, (m) => day(+m[1]!, +m[2]! - 1, +m[3]!)],
    // 10.01.2024: dotted dates are day first wherever they are written
    [/\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/, (m) => day(+m[3]!, +m[2]! - 1, +m[1]!)],
    // 31 Dec 2023, 31st of December 2023, 31st December, 2023
    [
      new RegExp(`\\b${ordinal} (?:of )?${monthNames},? (\\d{4})\\b`, "i"),
      (m) => day(+m[3]!, monthIndex(m[2]!), +m[1]!),
    ],
    // Dec 31, 2023; December 31st 2023
    [new RegExp(`\\b${monthNames} ${ordinal},? (\\d{4})\\b`, "i"), (m) => day(+m[3]!, monthIndex(m[1]!), +m[2]!)],
    // 10/01/2024: as the stated convention reads it; unstated, only when one order is no date
    [
      /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/,
      (m) => {
        const [a, b, y] = [+m[1]!, +m[2]!, +m[3]!];
        const order =
          slashDates !== "unstated"
            ? slashDates
            : a > 12 && b <= 12
              ? "day-first"
              : b > 12 && a <= 12
                ? "month-first"
                : null;
        if (order === "day-first") return day(y, b - 1, a);
        if (order === "month-first") return day(y, a - 1, b);
        return null;
      },
    ],
  ];
  for (const [pattern, read] of forms) {
    const match = query.match(pattern);
    const at = match && read(match);
    if (match && at !== null && at !== undefined) return { match, day: at };
  }
  return null;
}

/**
 * Reads the time of a question, relative to `now`: a day date (2024-01-10, 10.01.2024, 31 Dec 2023,
 * Dec 31, 2023, 31st of December 2023, and 10/01/2024 as `slashDates` says), a month with or without
 * a year ("in May", "back in May 2023", the latest such month not after now), a year, a season,
 * "last week/month/year", "yesterday"; and whether it asks about the present or asks when something
 * happened. The period is a `range` to prefer only for a question about when.
 *
 * @example
 * temporalCue("When did I move, back in May 2023?", Date.UTC(2024, 0, 1))
 * // { range: { from: 2023-05-01, to: 2023-06-01 }, named: (the same), current: false, asksWhen: true, rest: "When did I move,?" }
 */
export function temporalCue(query: string, now: number, slashDates: SlashDates = "unstated"): TemporalCue {
  const current =
    /\b(now|currently|these days|nowadays|at the moment|current|still|latest|newest|recent|recently|anymore|today)\b/i.test(
      query,
    );
  const asksWhen =
    /^\s*(?:(?:and|so|in|on|during) )?(when\b|(?:what|which) (?:date|day|month|year|week|time|season)s?\b|how (?:long|many (?:days|weeks|months|years)) ago\b|since when\b)/i.test(
      query,
    );
  let rest = query;
  let named: TemporalCue["named"];
  const cut = (match: RegExpMatchArray) => {
    rest = (query.slice(0, match.index) + query.slice(match.index! + match[0].length))
      .replace(/\s+([?.!,])/g, "$1")
      .replace(/\s{2,}/g, " ")
      .trim();
  };
  const year = new Date(now).getUTCFullYear();
  let match: RegExpMatchArray | null;
  const date = dayDate(query, slashDates);
  if (date) {
    named = { from: date.day, to: date.day + dayMs };
    cut(date.match);
  } else if (
    (match = query.match(
      new RegExp(`\\b(?:back )?(?:in|during|of|around) (${months.join("|")})(?:,? (\\d{4}))?\\b`, "i"),
    ))
  ) {
    const month = months.indexOf(match[1]!.toLowerCase());
    let y = match[2] ? Number(match[2]) : year;
    if (!match[2] && Date.UTC(y, month, 1) > now) y -= 1;
    named = { from: Date.UTC(y, month, 1), to: Date.UTC(y, month + 1, 1) };
    cut(match);
  } else if (
    (match = query.match(
      /\b(?:back )?(?:in|during) (?:the )?(spring|summer|autumn|fall|winter)(?: of)?(?: (\d{4}))?\b/i,
    ))
  ) {
    const start = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 }[match[1]!.toLowerCase() as "spring"];
    let y = match[2] ? Number(match[2]) : year;
    if (!match[2] && Date.UTC(y, start, 1) > now) y -= 1;
    named = { from: Date.UTC(y, start, 1), to: Date.UTC(y, start + 3, 1) };
    cut(match);
  } else if ((match = query.match(/\b(?:back )?(?:in|during) (\d{4})\b/i))) {
    const y = Number(match[1]);
    named = { from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) };
    cut(match);
  } else if ((match = query.match(/\blast (week|month|year)\b/i))) {
    const days = { week: 7, month: 31, year: 366 }[match[1]!.toLowerCase() as "week"];
    named = { from: now - days * dayMs, to: now };
    cut(match);
  } else if ((match = query.match(/\byesterday\b/i))) {
    named = { from: now - 2 * dayMs, to: now };
    cut(match);
  }
  return { ...(named && asksWhen ? { range: named } : {}), ...(named ? { named } : {}), current, asksWhen, rest };
}

/**
 * How well a memory's time matches the period a question names, 0..1: 1 inside it; before it, a
 * share that halves every `halfLifeDays` back (what was true before a period is often still true in
 * it: "where did I live in May" is answered by the move in March); 0 after it.
 */
export function periodMatch(at: number, range: { from: number; to: number }, halfLifeDays = 60): number {
  if (at >= range.from && at < range.to) return 1;
  if (at >= range.to) return 0;
  return 0.5 * 0.5 ** ((range.from - at) / dayMs / halfLifeDays);
}
