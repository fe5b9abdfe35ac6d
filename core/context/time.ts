import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import type { MemoryItem } from "./types";

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
  /** The period named ("in May 2023", "last month", "in 2022"), epoch ms, `to` exclusive. */
  range?: { from: number; to: number };
  /** "now", "currently", "these days", "current", "still", "latest", "recently": the newest fact should win. */
  current: boolean;
  /** "When did …", "what date …", "how long ago …": the answer is a time; no period is preferred. */
  asksWhen: boolean;
  /** The question without the period's words, for the word and meaning searches. */
  rest: string;
}

/**
 * Reads the time of a question, relative to `now`: a month with or without a year ("in May",
 * "back in May 2023", the latest such month not after now), a year, a season, "last week/month/year",
 * "yesterday"; and whether it asks about the present or asks when something happened.
 *
 * @example
 * temporalCue("Where was I living in May 2023?", Date.UTC(2024, 0, 1))
 * // { range: { from: 2023-05-01, to: 2023-06-01 }, current: false, asksWhen: false, rest: "Where was I living?" }
 */
export function temporalCue(query: string, now: number): TemporalCue {
  const current =
    /\b(now|currently|these days|nowadays|at the moment|current|still|latest|newest|recent|recently|anymore|today)\b/i.test(
      query,
    );
  const asksWhen = /^\s*(when\b|what (date|day|month|year)\b|how long ago\b)/i.test(query);
  let rest = query;
  let range: TemporalCue["range"];
  const cut = (match: RegExpMatchArray) => {
    rest = (query.slice(0, match.index) + query.slice(match.index! + match[0].length))
      .replace(/\s+([?.!,])/g, "$1")
      .replace(/\s{2,}/g, " ")
      .trim();
  };
  const year = new Date(now).getUTCFullYear();
  let match: RegExpMatchArray | null;
  if (
    (match = query.match(
      new RegExp(`\\b(?:back )?(?:in|during|of|around) (${months.join("|")})(?:,? (\\d{4}))?\\b`, "i"),
    ))
  ) {
    const month = months.indexOf(match[1]!.toLowerCase());
    let y = match[2] ? Number(match[2]) : year;
    if (!match[2] && Date.UTC(y, month, 1) > now) y -= 1;
    range = { from: Date.UTC(y, month, 1), to: Date.UTC(y, month + 1, 1) };
    cut(match);
  } else if (
    (match = query.match(
      /\b(?:back )?(?:in|during) (?:the )?(spring|summer|autumn|fall|winter)(?: of)?(?: (\d{4}))?\b/i,
    ))
  ) {
    const start = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 }[match[1]!.toLowerCase() as "spring"];
    let y = match[2] ? Number(match[2]) : year;
    if (!match[2] && Date.UTC(y, start, 1) > now) y -= 1;
    range = { from: Date.UTC(y, start, 1), to: Date.UTC(y, start + 3, 1) };
    cut(match);
  } else if ((match = query.match(/\b(?:back )?(?:in|during) (\d{4})\b/i))) {
    const y = Number(match[1]);
    range = { from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) };
    cut(match);
  } else if ((match = query.match(/\blast (week|month|year)\b/i))) {
    const days = { week: 7, month: 31, year: 366 }[match[1]!.toLowerCase() as "week"];
    range = { from: now - days * dayMs, to: now };
    cut(match);
  } else if ((match = query.match(/\byesterday\b/i))) {
    range = { from: now - 2 * dayMs, to: now };
    cut(match);
  }
  return { ...(range ? { range } : {}), current, asksWhen, rest };
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
