import { describe, expect, it } from "vitest";
import { compileScript, compileScriptJson, isScriptError, printScript } from "../../core/dsl";
import { customGateKinds, customGateSpecSchema, type CustomGateKind, type CustomGateSpec } from "../../core/gates";

/**
 * One gate of each kind, with every option it takes. A Record over the schema's kinds: a new kind in
 * core/gates/gate-spec.ts fails to compile here until it has a sample, and the DSL printer
 * (core/dsl/print.ts) fails to compile until it prints it.
 */
const samples: Record<CustomGateKind, CustomGateSpec[]> = {
  "deny-pattern": [
    { name: "no-drop", kind: "deny-pattern", tool: "sql.*", field: "query", pattern: "drop\\s+table" },
    { name: "no-cards", kind: "deny-pattern", on: ["reply", "tool"], pattern: "\\b\\d{16}\\b" },
  ],
  "allow-hosts": [
    {
      name: "github-only",
      kind: "allow-hosts",
      tool: "http.fetch",
      field: "url",
      hosts: ["api.github.com", "*.example.com"],
    },
  ],
  "max-calls": [
    { name: "few-fetches", kind: "max-calls", tool: "http.*", max: 3 },
    { name: "no-calls", kind: "max-calls", max: 0 },
  ],
  "max-size": [{ name: "short", kind: "max-size", on: ["answer", "memory"], max: 2000 }],
};

const script = (gates: CustomGateSpec[]) => compileScriptJson({ name: "a", description: "d", gates }).script;

describe("every gate kind of the schema", () => {
  it("the kinds are the schema's union, each with a sample", () => {
    expect(customGateKinds()).toEqual(customGateSpecSchema.options.map((o) => o.shape.kind.value));
    expect(customGateKinds().sort()).toEqual(Object.keys(samples).sort());
  });

  for (const kind of customGateKinds()) {
    it(`${kind} goes through parse → print → parse unchanged`, () => {
      const gates = samples[kind];
      const parsed = script(gates);
      expect(parsed.gates).toEqual(gates);
      const printed = printScript(parsed);
      for (const gate of gates) expect(printed).toContain(`(gate ${JSON.stringify(gate.name)} :${kind} `);
      const again = compileScript(printed).script;
      expect(again.gates).toEqual(gates);
      expect(printScript(again)).toBe(printed);
    });
  }

  it("all kinds together keep their order through the DSL", () => {
    const gates = customGateKinds().flatMap((kind) => samples[kind]);
    expect(compileScript(printScript(script(gates))).script.gates).toEqual(gates);
  });

  it("a gate with no kind, or an unknown one, is refused naming every kind", () => {
    let message = "";
    try {
      compileScript(`(actor "a" (description "d")\n  (gate "g" :max-callz 3))`);
    } catch (error) {
      if (!isScriptError(error)) throw error;
      message = error.issues.map((i) => i.message).join("\n");
    }
    for (const kind of customGateKinds()) expect(message).toContain(`:${kind}`);
    // The positive control: the same gate with a known kind compiles.
    expect(compileScript(`(actor "a" (description "d")\n  (gate "g" :max-calls 3))`).script.gates).toEqual([
      { name: "g", kind: "max-calls", max: 3 },
    ]);
  });

  it("the JSON form's refusal of an unknown kind names every kind", () => {
    let message = "";
    try {
      compileScriptJson({ name: "a", description: "d", gates: [{ name: "g", kind: "max-callz", max: 3 }] });
    } catch (error) {
      if (!isScriptError(error)) throw error;
      message = error.issues.map((i) => `${i.expected} ${i.message}`).join("\n");
    }
    expect(message).toContain('kind "deny-pattern", "allow-hosts", "max-calls" or "max-size"');
  });
});
