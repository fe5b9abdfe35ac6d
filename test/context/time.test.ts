import { describe, expect, it } from "vitest";
import { occurredAtOf, occurredAtSchema, periodMatch, temporalCue } from "../../core/context";

const dayMs = 86_400_000;
// A Wednesday.
const said = Date.UTC(2024, 4, 15, 18, 0);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("occurredAtOf: when a thing said at a time happened", () => {
  it.each([
    ["We moved to Lisbon last weekend.", "2024-05-11"],
    ["I ran my first 10K on Sunday, in the rain!", "2024-05-12"],
    ["We brought home a beagle yesterday.", "2024-05-14"],
    ["The concert last night was the best gig in years.", "2024-05-14"],
    ["I started pottery three days ago.", "2024-05-12"],
    ["My sister visited two weeks ago.", "2024-05-01"],
    ["I changed jobs last month.", "2024-04-15"],
    ["I live in Lisbon with my partner.", "2024-05-15"],
    ["We fly to Kyoto next week.", "2024-05-15"],
  ])("'%s' happened on %s", (text, expected) => {
    expect(day(occurredAtOf(text, said))).toBe(expected);
  });
});

describe("temporalCue: what a question says about time", () => {
  const now = Date.UTC(2024, 0, 10);

  it("a month and year is that month, and leaves the rest of the question for the searches", () => {
    expect(temporalCue("Where was I living in May 2023?", now)).toEqual({
      range: { from: Date.UTC(2023, 4, 1), to: Date.UTC(2023, 5, 1) },
      current: false,
      asksWhen: false,
      rest: "Where was I living?",
    });
  });

  it("a month without a year is the latest such month not after now", () => {
    expect(temporalCue("What did I cook back in March?", now).range).toEqual({
      from: Date.UTC(2023, 2, 1),
      to: Date.UTC(2023, 3, 1),
    });
    expect(temporalCue("What did I do in January?", now).range).toEqual({
      from: Date.UTC(2024, 0, 1),
      to: Date.UTC(2024, 1, 1),
    });
  });

  it("reads years, seasons and 'last month'", () => {
    expect(temporalCue("Which trips did I take in 2022?", now).range).toEqual({
      from: Date.UTC(2022, 0, 1),
      to: Date.UTC(2023, 0, 1),
    });
    expect(temporalCue("What did I do in the summer of 2023?", now).range).toEqual({
      from: Date.UTC(2023, 5, 1),
      to: Date.UTC(2023, 8, 1),
    });
    expect(temporalCue("Who did I meet last month?", now).range).toEqual({ from: now - 31 * dayMs, to: now });
  });

  it("tells a question about now from one about when, and one with no time at all", () => {
    expect(temporalCue("Where do I live now?", now)).toMatchObject({ current: true, asksWhen: false });
    expect(temporalCue("Which city am I living in these days?", now)).toMatchObject({ current: true });
    expect(temporalCue("When did we adopt Biscuit?", now)).toMatchObject({ current: false, asksWhen: true });
    const plain = temporalCue("What's my dog's name?", now);
    expect(plain).toEqual({ current: false, asksWhen: false, rest: "What's my dog's name?" });
  });

  it("'may' the verb is not the month", () => {
    expect(temporalCue("May I ask what my sister's name is?", now).range).toBeUndefined();
  });
});

describe("periodMatch", () => {
  const range = { from: Date.UTC(2023, 4, 1), to: Date.UTC(2023, 5, 1) };
  it("is 1 inside the period, a share that fades before it, and 0 after it", () => {
    expect(periodMatch(Date.UTC(2023, 4, 20), range)).toBe(1);
    expect(periodMatch(range.from - 60 * dayMs, range)).toBeCloseTo(0.25, 10);
    expect(periodMatch(range.from - 1, range)).toBeLessThan(0.5);
    expect(periodMatch(range.to, range)).toBe(0);
  });
});

describe("occurredAtSchema", () => {
  it("takes ISO dates, date-times with a zone, and epoch milliseconds", () => {
    expect(occurredAtSchema.parse("2024-05-03")).toBe(Date.UTC(2024, 4, 3));
    expect(occurredAtSchema.parse("2024-05-03T18:30:00+02:00")).toBe(Date.UTC(2024, 4, 3, 16, 30));
    expect(occurredAtSchema.parse(1714760000000)).toBe(1714760000000);
    expect(occurredAtSchema.parse("1969-07-20")).toBe(Date.UTC(1969, 6, 20));
  });

  it("refuses seconds, local date-times and words, saying what is allowed", () => {
    const message = (value: unknown) => occurredAtSchema.safeParse(value).error?.issues[0]?.message;
    expect(message(1714760000)).toMatch(/looks like seconds/);
    expect(message("2024-05-03T18:30:00")).toMatch(/ISO 8601 date/);
    expect(message("last tuesday")).toMatch(/ISO 8601 date \(2024-05-03\), a date-time with a time zone/);
    expect(message(1.5e12 + 0.5)).toMatch(/or epoch milliseconds/);
  });
});
