/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { gatedWrite, modelOutputSinks, type OutputScreen } from "../../core/gates";
import { findUngatedWrites, modelCallers, sinkProblems, unlistedModelCallers } from "./sink-scan";

// The source as text (Vite serves any file with `?raw`; workerd has no file system).
const sources = import.meta.glob(["../../durable-objects/**/*.ts", "../../core/**/*.ts", "../../workers/**/*.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

describe("every place that stores model output passes the output gates (core/gates/sinks)", () => {
  it("the scan reads the agent's memory, run and gates code", () => {
    const names = Object.keys(sources);
    for (const file of [
      "memory/context-turn.ts",
      "memory/lifecycle.ts",
      "memory/feature.ts",
      "core/run/model-result.ts",
      "core/run/call-gates.ts",
    ])
      expect(names.some((n) => n.endsWith(file))).toBe(true);
  });

  it("no write of the memory store is outside gatedWrite / gatedKeep, unless it says why it stores no model output", () => {
    expect(findUngatedWrites(sources)).toEqual([]);
  });

  it("every sink in the list is gated by code that names it", () => {
    expect(sinkProblems(sources)).toEqual([]);
  });

  it("every file that calls a model is a listed sink's (a new caller is a new sink to list and gate)", () => {
    expect(unlistedModelCallers(sources)).toEqual([]);
    for (const file of Object.keys(modelCallers)) expect(Object.keys(sources).some((n) => n.endsWith(file))).toBe(true);
    const titled = {
      "../../durable-objects/agent/chat/titles.ts":
        "export async function title(llm, text) {\n  const r = await llm.complete({ model: 'm', messages: [] });\n  return r.content;\n}\n",
    };
    expect(unlistedModelCallers(titled)).toEqual(["durable-objects/agent/chat/titles.ts"]);
  });

  it("the scan fails for real: a new memory write without the gate, or a listed sink nobody gates, is named", () => {
    const added = {
      "../../durable-objects/agent/memory/report.ts": `export async function keepReport(memory, text) {\n  await memory.insert([{ kind: "episode", text, provenance: "report" }]);\n}\n`,
      "../../durable-objects/agent/memory/title.ts": `export function retitle(deps, id, text) {\n  deps.memory.updateText(id, text);\n}\n`,
    };
    expect(findUngatedWrites(added)).toEqual([
      {
        file: "../../durable-objects/agent/memory/report.ts",
        line: 2,
        code: 'await memory.insert([{ kind: "episode", text, provenance: "report" }]);',
      },
      { file: "../../durable-objects/agent/memory/title.ts", line: 2, code: "deps.memory.updateText(id, text);" },
    ]);
    // The summary fold without its gate: its write is named, and the sink is gated nowhere.
    const path = Object.keys(sources).find((n) => n.endsWith("memory/context-turn.ts"))!;
    const ungated = {
      ...sources,
      [path]: sources[path]!.replaceAll(
        'gatedWrite("summary-fold", screen, proposal, ',
        "((_p, write) => write(proposal.text))(proposal, ",
      ),
    };
    expect(findUngatedWrites(ungated).map((w) => w.file)).toContain(path);
    expect(sinkProblems(ungated)).toEqual([
      "sink 'summary-fold' is listed as gated by gatedWrite, but no gatedWrite/gatedKeep names it",
    ]);
  });

  it("gatedWrite hands a refused text to no writer, and an allowed one unchanged", async () => {
    const screen: OutputScreen = (sink, text) =>
      text.includes("pineapple")
        ? `gate 'no-fruit': the ${modelOutputSinks[sink].kind} matches a denied pattern`
        : null;
    const stored: string[] = [];
    expect(await gatedWrite("summary-fold", screen, { text: "we spoke of pineapple" }, (t) => stored.push(t))).toEqual({
      written: false,
      reason: "gate 'no-fruit': the memory matches a denied pattern",
    });
    expect(await gatedWrite("summary-fold", screen, { text: "we spoke of apples" }, (t) => stored.push(t))).toEqual({
      written: true,
      value: 1,
    });
    expect(stored).toEqual(["we spoke of apples"]);
  });
});
