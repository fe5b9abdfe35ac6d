import { describe, expect, it } from "vitest";
import { compileScript, compileScriptJson, cronProblem, parseDuration, printScript } from "../../core/dsl";

describe("durations and cron", () => {
  it("durations are a whole number and a unit", () => {
    expect([
      parseDuration("250ms"),
      parseDuration("15s"),
      parseDuration("15m"),
      parseDuration("2h"),
      parseDuration("1d"),
    ]).toEqual([250, 15_000, 900_000, 7_200_000, 86_400_000]);
    expect([
      parseDuration("0m"),
      parseDuration("1.5h"),
      parseDuration("15"),
      parseDuration("m"),
      parseDuration("400d"),
    ]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it("cron fields are checked for ranges, lists and steps", () => {
    expect(cronProblem("0 7 * * *")).toBeUndefined();
    expect(cronProblem("*/5 0-23/2 1,15 */3 1-5")).toBeUndefined();
    expect(cronProblem("60 * * * *")).toBe("minute 60 is out of range 0-59");
    expect(cronProblem("* * 0 * *")).toBe("day of month 0 is out of range 1-31");
    expect(cronProblem("* * * * 5-1")).toBe("day of week range 5-1 runs backwards");
    expect(cronProblem("*/0 * * * *")).toBe("minute step /0 must be 1-59");
    expect(cronProblem("* * * JAN *")).toBe("month 'JAN' is not a number, *, range a-b or step /n");
  });
});

describe("the pretty-printer", () => {
  it("escapes strings and keeps odd keys and numbers so the script reads back the same", () => {
    const { script } = compileScriptJson({
      name: "p",
      description: 'line\n"quoted" \\ tab\t é \u0001 🙂',
      talents: [
        {
          name: "t",
          behaviors: [
            {
              name: "b",
              mode: "active",
              goal: { map: { "a key": -0, n: [1.5e-7, null, true] } },
              plan: { steps: [{ kind: "remember", content: { concat: ["$prev", { get: ["ctx"] }] } }] },
            },
          ],
        },
      ],
    });
    const printed = printScript(script);
    expect(printed).toContain('(description "line\\n\\"quoted\\" \\\\ tab\\t é \\u0001 🙂")');
    expect(printed).toContain('(goal (input) {"a key" -0 :n [1.5e-7 nil true]})');
    expect(printed).toContain('(plan (input ctx) (remember (concat "$prev" ctx)))');
    expect(compileScript(printed).script).toEqual(script);
  });

  it("prints a one-step plan without a sequence and several steps inside one", () => {
    const source =
      '(actor "a" (description "d") (talent "t" (behavior "b" :active (goal (input) "g") (plan (input ctx) (sequence (think))))))';
    expect(printScript(compileScript(source).script)).toContain("(plan (input ctx) (think))");
  });
});
