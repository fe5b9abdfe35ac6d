import { describe, expect, it } from "vitest";
import { compileScript, isScriptError, type ScriptIssue } from "../../core/dsl";

/** The issues compileScript reports for `lines` (joined with newlines). */
function issuesOf(...lines: string[]): ScriptIssue[] {
  try {
    compileScript(lines.join("\n"));
  } catch (error) {
    if (isScriptError(error)) return error.issues;
    throw error;
  }
  throw new Error("the script compiled");
}

const head = ['(actor "a"', '  (description "d")', '  (connections "airtable")'];
/** A script whose only behavior is `behavior` (on line 5). */
const withBehavior = (behavior: string) => issuesOf(...head, '  (talent "t"', `    ${behavior}))`);

describe("syntax errors point at line:column", () => {
  it("an unclosed paren names where it opened", () => {
    const [issue] = issuesOf('(actor "a"', '  (description "d"');
    expect(issue).toMatchObject({ line: 2, column: 3, form: "(", found: "end of input" });
    expect(issue!.message).toBe("unbalanced '(': the one opened at 2:3 is never closed");
  });

  it("a stray closing paren is reported where it stands", () => {
    expect(issuesOf('(actor "a" (description "d")))')[0]).toMatchObject({
      line: 1,
      column: 30,
      found: "')'",
      message: "unexpected ')': nothing is open here",
    });
  });

  it("a bracket closing the wrong kind of opener names the opener", () => {
    expect(issuesOf('(actor "a" (description "d"])')[0]).toMatchObject({
      line: 1,
      column: 28,
      expected: "')' to close the '(' opened at 1:12",
      found: "']'",
    });
  });

  it("an unterminated string is reported where it opened", () => {
    const [issue] = issuesOf('(actor "a"', '  (description "d))');
    expect(issue).toMatchObject({ line: 2, column: 16, form: "string", found: "end of input" });
    expect(issue!.message).toContain("unterminated string");
  });

  it("an unknown escape is reported at its backslash", () => {
    expect(issuesOf('(actor "a" (description "a\\qb"))')[0]).toMatchObject({
      line: 1,
      column: 27,
      form: "string",
      found: "\\q",
    });
  });

  it("a malformed number is rejected", () => {
    expect(issuesOf('(actor "a" (description "d") (limits :max-steps 8x))')[0]).toMatchObject({
      line: 1,
      column: 49,
      form: "number",
      found: "8x",
    });
  });

  it("a map with a dangling key says so", () => {
    expect(issuesOf('(actor "a" (description "d") (model :fallback {:provider}))')[0]).toMatchObject({
      line: 1,
      column: 47,
      form: "map",
      expected: "key/value pairs",
    });
  });
});

describe("semantic errors point at line:column with form, expected and found", () => {
  it("an unknown form suggests the nearest known name", () => {
    const [issue] = issuesOf(...head, '  (descripton "x"))');
    expect(issue).toMatchObject({ line: 4, column: 4, form: "descripton", found: "(descripton …)" });
    expect(issue!.message).toBe("unknown form 'descripton' in actor (did you mean 'description'?)");
  });

  it("an unknown action suggests the nearest action", () => {
    const [issue] = withBehavior('(behavior "b" :active (goal (input) "g") (plan (input ctx) (thnk)))');
    expect(issue).toMatchObject({ line: 5, column: 65, form: "thnk" });
    expect(issue!.message).toContain("(did you mean 'think'?)");
  });

  it("wrong arity says how many arguments were expected and found", () => {
    const [issue] = issuesOf(...head, '  (role "a" "b"))');
    expect(issue).toMatchObject({ line: 4, column: 3, form: "role", found: "2 arguments" });
    expect(issue!.message).toBe('wrong number of arguments to (role …): expected 1 as in (role "…"), found 2');
  });

  it("an invalid mode lists the modes and the likely one", () => {
    const [issue] = withBehavior('(behavior "b" :activ (goal (input) "g") (plan (input ctx) (think)))');
    expect(issue).toMatchObject({
      line: 5,
      column: 19,
      form: "behavior",
      expected: ":active, :passive, :persistent",
      found: ":activ",
    });
    expect(issue!.message).toContain("did you mean ':active'?");
  });

  it("asking an undeclared connection is an unknown connection", () => {
    const [issue] = withBehavior(
      '(behavior "b" :active (goal (input) "g") (plan (input ctx) (ask ("airtable" "notion") "q")))',
    );
    expect(issue).toMatchObject({ line: 5, column: 81, form: "ask", expected: "one of: airtable", found: '"notion"' });
    expect(issue!.message).toBe("unknown connection 'notion': declare it in (connections …)");
  });

  it("two behaviors with one name are a duplicate, reported at the second", () => {
    const behavior = '(behavior "b" :active (goal (input) "g") (plan (input ctx) (think)))';
    const [issue] = issuesOf(...head, '  (talent "t"', `    ${behavior}`, `    ${behavior}))`);
    expect(issue).toMatchObject({ line: 6, column: 15, form: "behavior", message: "behavior 'b' is defined twice" });
  });

  it("two talents with one name are a duplicate, reported at the second", () => {
    expect(issuesOf(...head, '  (talent "t")', '  (talent "t"))')[0]).toMatchObject({
      line: 5,
      column: 11,
      form: "talent",
      message: "talent 't' is defined twice",
    });
  });

  it("a bad duration says what a duration looks like", () => {
    const [issue] = withBehavior('(behavior "b" :passive (every "15x") (goal (input) "g") (plan (input ctx) (think)))');
    expect(issue).toMatchObject({ line: 5, column: 35, form: "every", found: '"15x"' });
    expect(issue!.expected).toContain("ms, s, m, h or d");
  });

  it("a bad cron names the field that is out of range", () => {
    const [issue] = withBehavior(
      '(behavior "b" :passive (cron "0 24 * * *") (goal (input) "g") (plan (input ctx) (think)))',
    );
    expect(issue).toMatchObject({
      line: 5,
      column: 34,
      form: "cron",
      message: 'bad cron "0 24 * * *": hour 24 is out of range 0-23',
    });
  });

  it("a cron with the wrong number of fields is rejected", () => {
    const [issue] = withBehavior(
      '(behavior "b" :passive (cron "0 7 * *") (goal (input) "g") (plan (input ctx) (think)))',
    );
    expect(issue!.message).toBe('bad cron "0 7 * *": has 4 fields, cron needs 5');
  });

  it("a value of the wrong type says what it found", () => {
    expect(issuesOf(...head, '  (limits :max-steps "8"))')[0]).toMatchObject({
      line: 4,
      column: 22,
      form: "limits",
      expected: "a whole number",
      found: 'string "8"',
    });
  });

  it("a value out of range is reported at the value", () => {
    expect(issuesOf(...head, "  (limits :max-steps 500))")[0]).toMatchObject({
      line: 4,
      column: 22,
      form: "limits",
      found: "number 500",
    });
  });

  it("an actor name that is not a slug is rejected at the name", () => {
    expect(issuesOf('(actor "Bad Name" (description "d"))')[0]).toMatchObject({
      line: 1,
      column: 8,
      form: "actor",
      found: 'string "Bad Name"',
    });
  });

  it("an unknown option suggests the nearest one", () => {
    const [issue] = issuesOf(...head, "  (limits :max-step 5))");
    expect(issue).toMatchObject({ line: 4, column: 11, form: "limits", found: ":max-step" });
    expect(issue!.message).toContain("did you mean ':max-steps'?");
  });

  it("a trigger on an active behavior is refused", () => {
    const [issue] = withBehavior('(behavior "b" :active (every "5m") (goal (input) "g") (plan (input ctx) (think)))');
    expect(issue).toMatchObject({ line: 5, column: 27, form: "every" });
  });

  it("a name used in an expression that is not a parameter is reported", () => {
    const [issue] = withBehavior('(behavior "b" :active (goal (input) (get inptu "x")) (plan (input ctx) (think)))');
    expect(issue).toMatchObject({ line: 5, column: 46, form: "get", found: "symbol inptu" });
  });

  it("several problems are reported together, in source order", () => {
    const issues = withBehavior('(behavior "b" :activ (goal (input) x) (plan (input ctx) (thnk)))');
    expect(issues.map((i) => `${i.line}:${i.column} ${i.form}`)).toEqual(["5:19 behavior", "5:40 goal", "5:62 thnk"]);
  });

  it("a script that is not one actor form says what a script is", () => {
    expect(issuesOf("; nothing here")[0]).toMatchObject({ line: 1, column: 1, found: "an empty script" });
    expect(issuesOf('(actor "a" (description "d"))', '(actor "b" (description "d"))')[0]).toMatchObject({
      line: 2,
      column: 1,
      form: "script",
    });
  });

  it("a spawn action needs spawning allowed", () => {
    const [issue] = withBehavior(
      '(behavior "b" :active (goal (input) "g") (plan (input ctx) (spawn "helper" :goal "x")))',
    );
    expect(issue).toMatchObject({
      line: 5,
      column: 64,
      form: "spawn",
      expected: "(spawn :allowed true :quota n) in the actor",
    });
  });

  it("a deny-pattern that is not a regular expression is refused", () => {
    expect(issuesOf(...head, '  (gate "g" :deny-pattern "(unclosed"))')[0]).toMatchObject({
      line: 4,
      column: 27,
      form: "gate",
      expected: "a regular expression in RE2 syntax (no backreferences or lookaround)",
      message: 'gate "g": not a valid pattern (RE2 syntax): missing closing ): `(unclosed`',
    });
  });

  it("a deny-pattern the linear-time engine cannot run (a backreference) is refused with the reason", () => {
    expect(issuesOf(...head, '  (gate "twice" :deny-pattern "(\\\\w+) \\\\1"))')[0]).toMatchObject({
      line: 4,
      column: 31,
      form: "gate",
      message: 'gate "twice": backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time',
    });
  });

  it("a persistent behavior with no trigger is refused, saying which triggers it can have", () => {
    try {
      compileScript(
        '(actor "a" (description "x") (talent "t" (behavior "b" :persistent (goal (input) "g") (plan (input ctx) (think)))))',
      );
    } catch (error) {
      expect((error as Error).message).toContain(
        'persistent behavior "b" has no trigger: add (every "1h"), (cron "0 7 * * *") or (on-idle "30m")',
      );
    }
    expect.assertions(1);
  });

  it("the message of the error lists the issues with their positions", () => {
    try {
      compileScript('(actor "a"\n  (descripton "x"))');
    } catch (error) {
      expect((error as Error).name).toBe("ScriptError");
      expect((error as Error).message).toContain("2:4 (descripton): unknown form 'descripton'");
      expect((error as Error).message).toContain("did you mean 'description'");
    }
    expect.assertions(3);
  });
});
