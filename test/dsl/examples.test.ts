import { describe, expect, it } from "vitest";
import devBuddySource from "../../examples/dev-buddy.pnth?raw";
import mainSource from "../../examples/main.pnth?raw";
import airtableSource from "../../examples/airtable.pnth?raw";
import githubSource from "../../examples/github.pnth?raw";
import devBuddyJson from "../../examples/dev-buddy.json";
import { actorScriptSchema, compileScript, compileScriptJson, printScript } from "../../core/dsl";

const examples = { "dev-buddy": devBuddySource, main: mainSource, airtable: airtableSource, github: githubSource };

describe("the example scripts", () => {
  for (const [name, source] of Object.entries(examples)) {
    it(`${name}.pnth compiles to a script named ${name}`, () => {
      const { script, warnings } = compileScript(source);
      expect(script.name).toBe(name);
      expect(warnings).toEqual([]);
      expect(actorScriptSchema.parse(JSON.parse(JSON.stringify(script)))).toEqual(script);
    });

    it(`${name}.pnth survives compile → print → compile unchanged`, () => {
      const first = compileScript(source).script;
      const printed = printScript(first);
      expect(compileScript(printed).script).toEqual(first);
      expect(printScript(compileScript(printed).script)).toBe(printed);
    });

    it(`${name}.pnth survives the trip through its JSON form`, () => {
      const first = compileScript(source).script;
      expect(compileScriptJson(JSON.parse(JSON.stringify(first))).script).toEqual(first);
    });
  }

  it("dev-buddy.json is the JSON twin of dev-buddy.pnth", () => {
    expect(compileScriptJson(devBuddyJson).script).toEqual(compileScript(devBuddySource).script);
  });

  it("dev-buddy reviews on each message by thinking, and hourly reviews open diffs", () => {
    const { script } = compileScript(devBuddySource);
    const [onMessage, hourly] = script.talents[0]!.behaviors;
    expect(onMessage).toMatchObject({ mode: "active", plan: { steps: [{ kind: "think" }] } });
    expect(onMessage!.trigger).toBeUndefined();
    expect(hourly).toMatchObject({ mode: "passive", trigger: { kind: "every", every: "1h", ms: 3_600_000 } });
    expect(hourly!.plan.steps.map((s) => s.kind)).toEqual(["tool", "think"]);
    expect(script.tools).toEqual(["clock.now", "git.diff"]);
    expect(script.model).toEqual({
      provider: "openai",
      name: "gpt-4o-mini",
      temperature: 0.2,
      fallback: { provider: "anthropic", name: "claude-haiku" },
    });
    expect(script.limits).toEqual({ maxSteps: 8, toolTimeoutMs: 5000 });
    expect(script.gates).toEqual([
      { name: "no-secrets", kind: "deny-pattern", pattern: "(api[_-]?key|password)\\s*[:=]", tool: "http.*" },
      { name: "github-only", kind: "allow-hosts", hosts: ["api.github.com"], tool: "http.fetch" },
    ]);
  });

  it("main fans one question out to airtable and github under a majority policy", () => {
    const { script } = compileScript(mainSource);
    const fanOut = script.talents[0]!.behaviors[0]!;
    expect(script.connections).toEqual(["airtable", "github"]);
    expect(fanOut.policy).toBe("majority");
    expect(fanOut.plan.steps[0]).toEqual({
      kind: "ask",
      targets: ["airtable", "github"],
      question: { concat: ["Help answer: ", { get: ["input", "text"] }] },
    });
    expect(fanOut.plan.steps[1]).toEqual({ kind: "message", role: "assistant", content: { prev: true } });
  });

  it("tools no registry provides compile with a warning at the place they are named", () => {
    const { warnings } = compileScript(devBuddySource, { knownTools: new Set(["clock.now"]) });
    expect(warnings).toEqual([
      {
        line: 24,
        column: 17,
        form: "tool",
        message: "no registry provides tool 'git.diff'; calls to it will fail until one does",
      },
    ]);
  });

  it("connections to agents outside the known ones, or to the actor itself, compile with a warning at the name", () => {
    const { script, warnings } = compileScript(mainSource, { knownAgents: new Set(["airtable", "githab", "main"]) });
    expect(script.connections).toEqual(["airtable", "github"]);
    expect(warnings).toEqual([
      {
        line: 7,
        column: 27,
        form: "connections",
        message:
          "no agent named 'github' in this project (did you mean 'githab'?); the connection is left out until that agent exists and the script is set again",
      },
    ]);
    const self = compileScriptJson({ name: "loner", description: "", connections: ["loner"] });
    expect(self.warnings).toEqual([
      {
        line: 0,
        column: 0,
        form: "connections.0",
        message: "actor 'loner' cannot be connected to itself; the connection is left out",
      },
    ]);
    expect(compileScript(mainSource).warnings).toEqual([]);
  });
});
