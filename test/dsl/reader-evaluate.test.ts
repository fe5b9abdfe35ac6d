import { describe, expect, it } from "vitest";
import { compileScript, evaluateExpr, readForms, resolveArgs, resolvePlan, type Behavior } from "../../core/dsl";

describe("the reader", () => {
  it("reads every kind of literal with its line and column", () => {
    const [form] = readForms('(a "s\\"\\\\\\n\\t\\u00e9" 42 -3 0.5 1e3 :key {:n 1} [x] true false nil)\n');
    expect(form).toMatchObject({ type: "list", pos: { line: 1, column: 1 } });
    const items = (form as { items: unknown[] }).items;
    expect(items).toEqual([
      { type: "symbol", name: "a", pos: { line: 1, column: 2 } },
      { type: "string", value: 's"\\\n\té', pos: { line: 1, column: 4 } },
      { type: "number", value: 42, pos: { line: 1, column: 22 } },
      { type: "number", value: -3, pos: { line: 1, column: 25 } },
      { type: "number", value: 0.5, pos: { line: 1, column: 28 } },
      { type: "number", value: 1000, pos: { line: 1, column: 32 } },
      { type: "keyword", name: "key", pos: { line: 1, column: 36 } },
      {
        type: "map",
        entries: [
          [
            { type: "keyword", name: "n", pos: { line: 1, column: 42 } },
            { type: "number", value: 1, pos: { line: 1, column: 45 } },
          ],
        ],
        pos: { line: 1, column: 41 },
      },
      {
        type: "vector",
        items: [{ type: "symbol", name: "x", pos: { line: 1, column: 49 } }],
        pos: { line: 1, column: 48 },
      },
      { type: "boolean", value: true, pos: { line: 1, column: 52 } },
      { type: "boolean", value: false, pos: { line: 1, column: 57 } },
      { type: "nil", pos: { line: 1, column: 63 } },
    ]);
  });

  it("skips ; comments and counts lines across them and inside strings", () => {
    const forms = readForms('; first\n"two\nlines" ; trailing\n  x');
    expect(forms).toEqual([
      { type: "string", value: "two\nlines", pos: { line: 2, column: 1 } },
      { type: "symbol", name: "x", pos: { line: 4, column: 3 } },
    ]);
  });
});

const behaviorOf = (body: string): Behavior =>
  compileScript(`(actor "a" (description "d") (connections "airtable" "github") (talent "t" ${body}))`).script
    .talents[0]!.behaviors[0]!;

describe("behaviors", () => {
  it("a passive behavior without a trigger runs when idle for the default time", () => {
    const b = behaviorOf('(behavior "b" :passive (goal (input) "g") (plan (input ctx) (think)))');
    expect(b.trigger).toEqual({ kind: "on-idle", idle: "30m", ms: 1_800_000 });
  });

  it("the default idle time comes from the compile options", () => {
    const source =
      '(actor "a" (description "d") (talent "t" (behavior "b" :passive (goal (input) "g") (plan (input ctx) (think)))))';
    expect(compileScript(source, { defaultIdle: "2h" }).script.talents[0]!.behaviors[0]!.trigger).toEqual({
      kind: "on-idle",
      idle: "2h",
      ms: 7_200_000,
    });
  });

  it("cron triggers accept lists, ranges and steps", () => {
    const b = behaviorOf(
      '(behavior "b" :persistent (cron "*/15 7-9,18 1 1-12/2 0,7") (goal (input) "g") (plan (input ctx) (think)))',
    );
    expect(b.trigger).toEqual({ kind: "cron", cron: "*/15 7-9,18 1 1-12/2 0,7" });
  });

  it("nested sequences flatten into one ordered plan", () => {
    const b = behaviorOf(
      '(behavior "b" :active (goal (input) "g") (plan (input ctx) (sequence (remember "a") (sequence (think) (remember "$prev")))))',
    );
    expect(resolvePlan(b.plan)).toEqual([
      { kind: "remember", content: "a" },
      { kind: "think" },
      { kind: "remember", content: { prev: true } },
    ]);
  });

  it("parameters may have other names: the first is the input, the second the context", () => {
    const b = behaviorOf(
      '(behavior "b" :active (goal (msg) (get msg "text")) (plan (m c) (tool "x.y" :args {:a (get c "k") :all m})))',
    );
    expect(b.goal).toEqual({ get: ["input", "text"] });
    expect(b.plan.steps[0]).toEqual({
      kind: "tool",
      tool: "x.y",
      args: { a: { get: ["ctx", "k"] }, all: { get: ["input"] } },
    });
  });
});

describe("evaluation", () => {
  it("reads input and context fields, and missing ones as null", () => {
    const scope = { input: { repo: "pantheon", pr: { id: 7 } }, ctx: { user: "ada" } };
    expect(evaluateExpr({ get: ["input", "repo"] }, scope)).toBe("pantheon");
    expect(evaluateExpr({ get: ["input", "pr", "id"] }, scope)).toBe(7);
    expect(evaluateExpr({ get: ["ctx", "user"] }, scope)).toBe("ada");
    expect(evaluateExpr({ get: ["input", "nope"] }, scope)).toBeNull();
    expect(evaluateExpr({ get: ["input", "toString"] }, scope)).toBeNull();
  });

  it("concatenates text, rendering non-text values as JSON and null as nothing", () => {
    expect(
      evaluateExpr({ concat: ["n=", 3, " ", { get: ["input", "x"] }, { map: { a: [1, true] } }] }, { input: {} }),
    ).toBe('n=3 {"a":[1,true]}');
  });

  it("$prev is the previous action's result", () => {
    expect(evaluateExpr({ prev: true }, { prev: { rows: 2 } })).toEqual({ rows: 2 });
    expect(evaluateExpr({ prev: true }, {})).toBeNull();
  });

  it("resolves a tool action's arguments against the scope", () => {
    const b = behaviorOf(
      '(behavior "b" :active (goal (input) "g") (plan (input ctx) (tool "git.diff" :args {:repo (get input "repo") :base "main" :ids [1 2]})))',
    );
    expect(resolveArgs(b.plan.steps[0]!, { input: { repo: "x" } })).toEqual({
      kind: "tool",
      tool: "git.diff",
      args: { repo: "x", base: "main", ids: [1, 2] },
    });
  });

  it("resolves a fan-out ask to its targets and the question text", () => {
    const b = behaviorOf(
      '(behavior "b" :active (policy :first) (goal (input) "g") (plan (input ctx) (ask ["airtable" "github"] (concat "Q: " (get input "text")))))',
    );
    expect(b.policy).toBe("first");
    expect(resolveArgs(b.plan.steps[0]!, { input: { text: "why?" } })).toEqual({
      kind: "ask",
      targets: ["airtable", "github"],
      question: "Q: why?",
    });
  });
});
