import { describe, expect, it } from "vitest";
import mainSource from "../../examples/main.pnth?raw";
import { renamedEntry, renameScriptSource } from "../../core/agents/rename";
import { compileScript, printScript } from "../../core/dsl";

describe("a script renamed with its agent", () => {
  it("DSL source keeps its comments and layout, only the actor's name changes, and compiles to the same script renamed", () => {
    const renamed = renameScriptSource(mainSource, "main-copy");
    expect(renamed).toBe(mainSource.replace('(actor "main"', '(actor "main-copy"'));
    expect(compileScript(renamed).script).toEqual({ ...compileScript(mainSource).script, name: "main-copy" });
    // Under its own name nothing changes.
    expect(renameScriptSource(mainSource, "main")).toBe(mainSource);
  });

  it("ActorScript JSON gets the new name; a source whose first actor form is in a comment is printed anew", () => {
    const script = compileScript('(actor "keeper" (description "Keeps."))').script;
    const json = JSON.stringify(script, null, 2);
    expect(JSON.parse(renameScriptSource(json, "keeper2"))).toEqual({ ...JSON.parse(json), name: "keeper2" });
    const tricky = '; was (actor "old")\n(actor "keeper" (description "Keeps."))';
    const out = renameScriptSource(tricky, "keeper2");
    expect(compileScript(out).script).toEqual({ ...script, name: "keeper2" });
    expect(out).toBe(printScript({ ...script, name: "keeper2" }));
    // A source that does not compile is left for the import to refuse by its own words.
    expect(renameScriptSource("(actor", "x")).toBe("(actor");
  });

  it("a project file entry: instructions the old script derived are re-derived, a person's own are kept", () => {
    const source = '(actor "keeper" (description "Keeps."))';
    const derived = renamedEntry(
      {
        description: "",
        tools: [],
        connections: [],
        pantheon: { script: source, instructions: "You are keeper. Keeps." },
      },
      "keeper2",
    );
    expect(derived.pantheon).toEqual({ script: '(actor "keeper2" (description "Keeps."))' });
    const own = renamedEntry(
      { description: "", tools: [], connections: [], pantheon: { script: source, instructions: "Be terse." } },
      "keeper2",
    );
    expect(own.pantheon?.instructions).toBe("Be terse.");
  });
});
