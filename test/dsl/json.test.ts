import { describe, expect, it } from "vitest";
import devBuddyJson from "../../examples/dev-buddy.json";
import { compileScript, compileScriptJson, isScriptError, printScript, type ScriptIssue } from "../../core/dsl";

function jsonIssues(value: unknown): ScriptIssue[] {
  try {
    compileScriptJson(value);
  } catch (error) {
    if (isScriptError(error)) return error.issues;
    throw error;
  }
  throw new Error("the script compiled");
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const minimal = { name: "echo", description: "Echoes" };

describe("the JSON form", () => {
  it("fills the same defaults as the DSL", () => {
    expect(compileScriptJson(minimal).script).toEqual(compileScript('(actor "echo" (description "Echoes"))').script);
    expect(compileScriptJson(minimal).script).toEqual({
      name: "echo",
      description: "Echoes",
      model: { provider: "offline", name: "offline" },
      contextSources: [],
      tools: [],
      connections: [],
      limits: {},
      gates: [],
      talents: [],
    });
  });

  it("reports a missing field with its JSON path", () => {
    expect(jsonIssues({ name: "echo" })).toEqual([
      {
        line: 0,
        column: 0,
        form: "description",
        expected: "a string",
        found: "nothing",
        message: "expected a string, found nothing",
      },
    ]);
  });

  it("reports an invalid mode at talents.0.behaviors.1.mode", () => {
    const bad = clone(devBuddyJson);
    bad.talents[0]!.behaviors[1]!.mode = "passiv";
    expect(jsonIssues(bad)[0]).toMatchObject({ form: "talents.0.behaviors.1.mode", found: '"passiv"' });
  });

  it("reports an unknown action kind with the kinds it accepts", () => {
    const bad = clone(devBuddyJson) as { talents: { behaviors: { plan: { steps: unknown[] } }[] }[] };
    bad.talents[0]!.behaviors[0]!.plan.steps[0] = { kind: "thnk" };
    expect(jsonIssues(bad)[0]).toMatchObject({
      form: "talents.0.behaviors.0.plan.steps.0.kind",
      expected: 'kind "tool", "message", "ask", "remember", "think" or "spawn"',
    });
  });

  it("reports unknown fields instead of dropping them", () => {
    expect(jsonIssues({ ...minimal, descripton: "x" })[0]).toMatchObject({
      form: "(root)",
      expected: "no unknown fields (descripton)",
    });
  });

  it("refuses a trigger whose ms disagrees with its duration, and fills ms when absent", () => {
    const script = {
      ...minimal,
      talents: [
        {
          name: "t",
          behaviors: [
            {
              name: "b",
              mode: "passive",
              trigger: { kind: "every", every: "15m" },
              goal: "g",
              plan: { steps: [{ kind: "think" }] },
            },
          ],
        },
      ],
    };
    expect(compileScriptJson(script).script.talents[0]!.behaviors[0]!.trigger).toEqual({
      kind: "every",
      every: "15m",
      ms: 900_000,
    });
    const wrong = clone(script);
    (wrong.talents[0]!.behaviors[0]!.trigger as { ms?: number }).ms = 5;
    expect(jsonIssues(wrong)[0]).toMatchObject({
      form: "talents.0.behaviors.0.trigger.ms",
      expected: "900000",
      found: "5",
    });
  });

  it("unknown connections are errors in JSON too", () => {
    const script = {
      ...minimal,
      talents: [
        {
          name: "t",
          behaviors: [
            {
              name: "b",
              mode: "active",
              goal: "g",
              plan: { steps: [{ kind: "ask", targets: ["github"], question: "q" }] },
            },
          ],
        },
      ],
    };
    expect(jsonIssues(script)[0]).toMatchObject({
      form: "talents.0.behaviors.0.plan.steps.0.targets.0",
      message: "unknown connection 'github': declare it in (connections …)",
    });
  });

  it("plan tools join the allowlist, and an inline spawned actor survives printing", () => {
    const child = {
      ...minimal,
      name: "child",
      talents: [
        {
          name: "t",
          behaviors: [{ name: "b", mode: "active", goal: "g", plan: { steps: [{ kind: "tool", tool: "clock.now" }] } }],
        },
      ],
    };
    const parent = {
      ...minimal,
      spawn: { allowed: true, quota: 1 },
      talents: [
        {
          name: "t",
          behaviors: [
            {
              name: "b",
              mode: "active",
              goal: "g",
              plan: { steps: [{ kind: "spawn", script: child, goal: "$prev" }] },
            },
          ],
        },
      ],
    };
    const { script } = compileScriptJson(parent);
    const spawned = script.talents[0]!.behaviors[0]!.plan.steps[0]!;
    expect(spawned).toMatchObject({
      kind: "spawn",
      goal: { prev: true },
      script: { name: "child", tools: ["clock.now"] },
    });
    expect(compileScript(printScript(script)).script).toEqual(script);
  });

  it("refuses cyclic and too deeply nested values with a ScriptError", () => {
    const cyclic: Record<string, unknown> = { ...minimal };
    cyclic.model = cyclic;
    expect(jsonIssues(cyclic)[0]!.message).toContain("nesting is too deep");
    expect(jsonIssues({ ...minimal, x: new Date(0) })[0]!.message).toContain("not JSON data");
  });
});
