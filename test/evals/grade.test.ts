import { describe, expect, it } from "vitest";
import { compareRuns, grade, readJudgement, summarize, type CaseResult } from "../../core/evals";

const noJudge = async () => ({ error: "no judge here" });
const observed = (reply: string, toolCalls: { name: string; arguments: unknown }[] = []) => ({ reply, toolCalls });

describe("eval graders", () => {
  it("exact and contains honour ignoreCase; notContains fails on the text", async () => {
    expect((await grade({ exact: "Lisbon" }, observed(" lisbon "), "q", noJudge)).pass).toBe(false);
    expect((await grade({ exact: "Lisbon", ignoreCase: true }, observed(" lisbon "), "q", noJudge)).pass).toBe(true);
    expect((await grade({ contains: "TRAM" }, observed("the tram museum"), "q", noJudge)).pass).toBe(false);
    expect((await grade({ contains: "TRAM", ignoreCase: true }, observed("the tram museum"), "q", noJudge)).pass).toBe(
      true,
    );
    expect(await grade({ notContains: "sorry" }, observed("Sorry, no"), "q", noJudge)).toMatchObject({ pass: true });
    expect(await grade({ notContains: "sorry", ignoreCase: true }, observed("Sorry, no"), "q", noJudge)).toMatchObject({
      pass: false,
      reason: "the reply contains 'sorry'",
    });
  });

  it("a regex runs on RE2: a pattern RE2 cannot run fails the grader with the reason, a catastrophic one stays linear", async () => {
    expect((await grade({ regex: "^\\d{4}-\\d{2}" }, observed("2024-05 it was"), "q", noJudge)).pass).toBe(true);
    const backref = await grade({ regex: "(a)\\1" }, observed("aa"), "q", noJudge);
    expect(backref.pass).toBe(false);
    expect(backref.reason).toContain("not RE2 syntax");
    // (a+)+$ against 30 a's and a b backtracks for minutes in a backtracking engine; RE2 answers at once.
    expect((await grade({ regex: "(a+)+$" }, observed(`${"a".repeat(30)}b`), "q", noJudge)).pass).toBe(false);
  });

  it("a JSON schema grader reads the reply's JSON (whole, fenced or embedded) and names the first problem", async () => {
    const schema = { type: "object", required: ["city"], properties: { city: { type: "string" } } };
    expect((await grade({ schema }, observed('{"city":"Porto"}'), "q", noJudge)).pass).toBe(true);
    expect((await grade({ schema }, observed('Here:\n```json\n{"city":"Porto"}\n```'), "q", noJudge)).pass).toBe(true);
    const wrong = await grade({ schema }, observed('{"city": 3}'), "q", noJudge);
    expect(wrong.pass).toBe(false);
    expect(wrong.reason).toContain("/city");
  });

  it("a tool grader matches the arguments it names, deeply, ignoring the ones it does not", async () => {
    const calls = [
      { name: "notes.add", arguments: { text: "buy milk", tags: ["home"], meta: { urgent: true, by: "ana" } } },
    ];
    expect(
      (await grade({ tool: "notes.add", arguments: { meta: { urgent: true } } }, observed("", calls), "q", noJudge))
        .pass,
    ).toBe(true);
    expect(
      (await grade({ tool: "notes.add", arguments: { tags: ["work"] } }, observed("", calls), "q", noJudge)).pass,
    ).toBe(false);
    expect(await grade({ tool: "clock.now" }, observed("", calls), "q", noJudge)).toMatchObject({
      pass: false,
      reason: "'clock.now' was not called (called: notes.add)",
    });
  });

  it("a judge's answer is read as a score from 0 to 1, or refused with what was wrong", async () => {
    expect(readJudgement('{"score": 0.8, "reason": "ok"}')).toEqual({ score: 0.8, reason: "ok" });
    expect(readJudgement('Sure! ```json\n{"score": 1}\n```')).toEqual({ score: 1, reason: "" });
    expect(readJudgement('{"score": 7}')).toMatchObject({ error: expect.stringContaining("not a number from 0 to 1") });
    expect(readJudgement("fine by me")).toMatchObject({ error: expect.stringContaining("not the JSON asked for") });
    const judged = await grade({ judge: { rubric: "polite", passAt: 0.9 } }, observed("hi"), "q", async () => ({
      score: 0.8,
      reason: "curt",
    }));
    expect(judged).toMatchObject({ pass: false, score: 0.8 });
  });

  it("a run's figures and its comparison: pass rate, unknown price as null, p50/p95, fixed/broke/new/removed", () => {
    const result = (name: string, pass: boolean, latencyMs: number, costUsd: number | null = 0): CaseResult => ({
      name,
      pass,
      reason: "",
      verdicts: [],
      reply: "",
      runId: null,
      tokens: 10,
      costUsd,
      latencyMs,
    });
    const base = { id: "r1", suite: "s", agent: "a", startedAt: 1, finishedAt: 2, threshold: 0.5 };
    const before = summarize(base, [result("a", true, 10), result("b", false, 20), result("gone", true, 30)]);
    const after = summarize({ ...base, id: "r2" }, [
      result("a", false, 10),
      result("b", true, 40, null),
      result("c", true, 100),
    ]);
    expect(after).toMatchObject({ passed: 2, pass: true, tokens: 30, costUsd: null, latencyMs: { p50: 40, p95: 100 } });
    expect(compareRuns(before, after).changes).toEqual([
      { name: "a", change: "broke", reason: "" },
      { name: "b", change: "fixed", reason: "" },
      { name: "c", change: "new", reason: "" },
      { name: "gone", change: "removed", reason: "not in this run's suite" },
    ]);
  });
});
