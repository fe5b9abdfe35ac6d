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
  const may2023 = { from: Date.UTC(2023, 4, 1), to: Date.UTC(2023, 5, 1) };

  it("a question about when that names a month and year prefers that month; the rest of the question is kept for the searches within it", () => {
    expect(temporalCue("When did I move, back in May 2023?", now)).toEqual({
      range: may2023,
      named: may2023,
      current: false,
      asksWhen: true,
      rest: "When did I move,?",
    });
  });

  it("a question not about when names a period but gets no range: the date is words it is searched with", () => {
    const kevin = temporalCue("What football match did Kevin watch in 2017?", now);
    expect(kevin.range).toBeUndefined();
    expect(kevin.named).toEqual({ from: Date.UTC(2017, 0, 1), to: Date.UTC(2018, 0, 1) });
    expect(kevin.asksWhen).toBe(false);
    expect(temporalCue("Where was I living in May 2023?", now)).toMatchObject({ named: may2023, asksWhen: false });
    expect(temporalCue("Where was I living in May 2023?", now).range).toBeUndefined();
    // Control: the same year asked about when is a range.
    expect(temporalCue("Which year did Kevin watch the final, in 2017?", now).range).toEqual(kevin.named);
  });

  it.each([
    "When did Kevin watch the final?",
    "when was the party",
    "What date was the concert?",
    "Which year did I start pottery?",
    "In which month did we adopt Biscuit?",
    "How long ago did Paola move?",
    "How many years ago did we meet?",
  ])("'%s' asks when", (question) => {
    expect(temporalCue(question, now).asksWhen).toBe(true);
  });

  it.each(["What football match did Kevin watch in 2017?", "Where was I living?", "Who said when we would meet?"])(
    "'%s' does not ask when",
    (question) => {
      expect(temporalCue(question, now).asksWhen).toBe(false);
    },
  );

  it("a month without a year is the latest such month not after now", () => {
    expect(temporalCue("When did I cook back in March?", now).range).toEqual({
      from: Date.UTC(2023, 2, 1),
      to: Date.UTC(2023, 3, 1),
    });
    expect(temporalCue("When did I swim in January?", now).range).toEqual({
      from: Date.UTC(2024, 0, 1),
      to: Date.UTC(2024, 1, 1),
    });
  });

  it("reads years, seasons and 'last month'", () => {
    expect(temporalCue("Which trips did I take in 2022?", now).named).toEqual({
      from: Date.UTC(2022, 0, 1),
      to: Date.UTC(2023, 0, 1),
    });
    expect(temporalCue("What did I do in the summer of 2023?", now).named).toEqual({
      from: Date.UTC(2023, 5, 1),
      to: Date.UTC(2023, 8, 1),
    });
    expect(temporalCue("Who did I meet last month?", now).named).toEqual({ from: now - 31 * dayMs, to: now });
  });

  const jan10 = { from: Date.UTC(2024, 0, 10), to: Date.UTC(2024, 0, 11) };
  const dec31 = { from: Date.UTC(2023, 11, 31), to: Date.UTC(2024, 0, 1) };
  it.each([
    ["What did we do on 10.01.2024?", jan10, "What did we do on?"],
    ["What did we do on 2024-01-10?", jan10, "What did we do on?"],
    ["What did we cook on 31 Dec 2023?", dec31, "What did we cook on?"],
    ["What did we cook on Dec 31, 2023?", dec31, "What did we cook on?"],
    ["What did we cook on the 31st of December 2023?", dec31, "What did we cook on the?"],
    ["What did we cook on December 31st, 2023?", dec31, "What did we cook on?"],
    ["What did we cook on 31/12/2023?", dec31, "What did we cook on?"],
  ])("reads the day of '%s'", (question, day, rest) => {
    expect(temporalCue(question, now)).toMatchObject({ named: day, rest });
  });

  it("a slash date both orders allow is read as the stated convention says, and not at all when none is stated", () => {
    expect(temporalCue("What happened on 10/01/2024?", now, "day-first").named).toEqual(jan10);
    expect(temporalCue("What happened on 10/01/2024?", now, "month-first").named).toEqual({
      from: Date.UTC(2024, 9, 1),
      to: Date.UTC(2024, 9, 2),
    });
    expect(temporalCue("What happened on 10/01/2024?", now).named).toBeUndefined();
  });

  it("a day that does not exist is no date", () => {
    expect(temporalCue("What happened on 31.02.2024?", now).named).toBeUndefined();
    expect(temporalCue("When did it happen on 31.02.2024?", now).range).toBeUndefined();
  });

  it("a day date on a question about when is its range", () => {
    expect(temporalCue("When on 31 Dec 2023 did the fireworks start?", now).range).toEqual(dec31);
  });

  it("tells a question about now from one about when, and one with no time at all", () => {
    expect(temporalCue("Where do I live now?", now)).toMatchObject({ current: true, asksWhen: false });
    expect(temporalCue("Which city am I living in these days?", now)).toMatchObject({ current: true });
    expect(temporalCue("When did we adopt Biscuit?", now)).toMatchObject({ current: false, asksWhen: true });
    const plain = temporalCue("What's my dog's name?", now);
    expect(plain).toEqual({ current: false, asksWhen: false, rest: "What's my dog's name?" });
  });

  it("'may' the verb is not the month", () => {
    expect(temporalCue("May I ask what my sister's name is?", now).named).toBeUndefined();
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
