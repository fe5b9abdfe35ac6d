import { describe, expect, it } from "vitest";
import { compileScript, compileScriptJson, isScriptError, printScript, type ScriptIssue } from "../../core/dsl";

function issuesOf(source: string): ScriptIssue[] {
  try {
    compileScript(source);
  } catch (error) {
    if (isScriptError(error)) return error.issues;
    throw error;
  }
  throw new Error("the script compiled");
}

const actor = (gates: string) => `(actor "a" (role "helper")\n  ${gates})`;

describe("gate forms for outputs", () => {
  it("`:on` says what a gate checks; `:deny` is `:deny-pattern`; `:max-size` limits outputs; the printer writes them back", () => {
    const { script } = compileScript(
      actor(`(gate "no-internal-urls" :on reply :deny "https?://[^ ]*\\\\.internal")
  (gate "no-cards" :on (memory message tool) :deny-pattern "\\\\b\\\\d{16}\\\\b")
  (gate "short-answers" :on [answer] :max-size 2000)
  (gate "no-drop" :deny-pattern "drop table" :tool "sql.*")`),
    );
    expect(script.gates).toEqual([
      { name: "no-internal-urls", kind: "deny-pattern", on: ["reply"], pattern: "https?://[^ ]*\\.internal" },
      { name: "no-cards", kind: "deny-pattern", on: ["memory", "message", "tool"], pattern: "\\b\\d{16}\\b" },
      { name: "short-answers", kind: "max-size", on: ["answer"], max: 2000 },
      { name: "no-drop", kind: "deny-pattern", tool: "sql.*", pattern: "drop table" },
    ]);
    expect(compileScript(printScript(script)).script.gates).toEqual(script.gates);
  });

  it("the JSON form takes the same gates", () => {
    const { script } = compileScriptJson({
      name: "j",
      description: "d",
      gates: [
        { name: "g", kind: "deny-pattern", on: ["reply", "answer"], pattern: "secret" },
        { name: "s", kind: "max-size", on: ["memory"], max: 300 },
      ],
    });
    expect(script.gates.map((g) => g.kind)).toEqual(["deny-pattern", "max-size"]);
  });

  it("refusals name the option and what it may be", () => {
    expect(issuesOf(actor(`(gate "g" :on replies :deny "x")`))[0]).toMatchObject({
      form: "gate",
      expected: "one of tool, reply, message, memory, answer",
      found: "replies",
    });
    expect(issuesOf(actor(`(gate "g" :on tool :max-size 10)`))[0]).toMatchObject({
      form: "gate",
      expected: "one of reply, message, memory, answer",
      found: "tool",
    });
    expect(issuesOf(actor(`(gate "g" :max-size 10)`))[0]!.message).toBe(
      "a :max-size gate needs :on naming the outputs it limits: reply, message, memory, answer",
    );
    expect(issuesOf(actor(`(gate "g" :on reply :max-calls 3)`))[0]!.message).toBe(
      ":on is for :deny-pattern and :max-size gates; :max-calls checks tool calls only",
    );
    expect(issuesOf(actor(`(gate "g" :deny "x" :deny-pattern "y")`))[0]!.message).toContain(
      "needs exactly one of :deny-pattern (or :deny), :allow-hosts, :max-calls or :max-size, found 2",
    );
    expect(() =>
      compileScriptJson({
        name: "j",
        description: "d",
        gates: [{ name: "g", kind: "max-size", on: ["tool"], max: 3 }],
      }),
    ).toThrow();
  });
});
