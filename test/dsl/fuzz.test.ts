import { describe, expect, it } from "vitest";
import devBuddySource from "../../examples/dev-buddy.pnth?raw";
import mainSource from "../../examples/main.pnth?raw";
import airtableSource from "../../examples/airtable.pnth?raw";
import githubSource from "../../examples/github.pnth?raw";
import devBuddyJson from "../../examples/dev-buddy.json";
import {
  actorScriptSchema,
  compileScript,
  compileScriptJson,
  isScriptError,
  printScript,
  type CompileResult,
} from "../../core/dsl";
import { seededRandom } from "../doubles/seeded-random";

const SEED = 20240601;
const examples = [devBuddySource, mainSource, airtableSource, githubSource];
const tokens = [
  "(",
  ")",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  '"',
  '"x"',
  '"$prev"',
  '"15m"',
  '"0 7 * * *"',
  '"\\u00e9"',
  '"\\q"',
  "\\",
  ";c\n",
  "\n",
  " ",
  " ",
  ",",
  "0",
  "-1",
  "3.5",
  "1e400",
  "8x",
  "-",
  ":",
  "::a",
  ":active",
  ":passive",
  ":persistent",
  ":args",
  ":max-steps",
  ":content",
  ":goal",
  ":allowed",
  "actor",
  "description",
  "model",
  "talent",
  "behavior",
  "goal",
  "plan",
  "input",
  "ctx",
  "get",
  "concat",
  "sequence",
  "tool",
  "ask",
  "think",
  "remember",
  "message",
  "spawn",
  "every",
  "cron",
  "on-idle",
  "policy",
  ":majority",
  "true",
  "false",
  "nil",
  "\u0000",
  "é",
  "🙂",
];

/** JSON with sorted keys: deep equality as one string comparison. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/** Whatever the compiler does with `run`, it returns a script that re-validates and round-trips, or throws ScriptError. */
function check(run: () => CompileResult, label: string, failures: string[]): "ok" | "error" {
  let result: CompileResult;
  try {
    result = run();
  } catch (error) {
    if (!isScriptError(error) || error.issues.length === 0) failures.push(`${label}: threw ${String(error)}`);
    else if (!error.issues.every((i) => Number.isInteger(i.line) && Number.isInteger(i.column) && i.message && i.form))
      failures.push(`${label}: malformed issue ${JSON.stringify(error.issues[0])}`);
    return "error";
  }
  try {
    actorScriptSchema.parse(JSON.parse(JSON.stringify(result.script)));
    const again = compileScript(printScript(result.script)).script;
    if (canonical(again) !== canonical(result.script)) failures.push(`${label}: print round trip changed the script`);
  } catch (error) {
    failures.push(`${label}: compiled script did not round-trip: ${String(error).slice(0, 300)}`);
  }
  return "ok";
}

function mutate(source: string, r: ReturnType<typeof seededRandom>): string {
  let s = source;
  for (let m = 1 + r.int(4); m > 0; m--) {
    const at = r.int(s.length + 1);
    const len = 1 + r.int(12);
    switch (r.int(6)) {
      case 0:
        s = s.slice(0, at) + s.slice(at + len);
        break;
      case 1:
        s = s.slice(0, at) + r.pick(tokens) + s.slice(at);
        break;
      case 2:
        s = s.slice(0, at) + s.slice(at, at + len * 4) + s.slice(at);
        break;
      case 3:
        s = s.slice(0, at);
        break;
      case 4:
        s = s.slice(0, at) + String.fromCharCode(r.int(0x3000)) + s.slice(at + 1);
        break;
      default: {
        const other = r.int(s.length + 1);
        s =
          s.slice(0, Math.min(at, other)) +
          s.slice(Math.max(at, other), Math.max(at, other) + len) +
          s.slice(Math.min(at, other));
      }
    }
  }
  return s;
}

function mutateJson(value: unknown, r: ReturnType<typeof seededRandom>): unknown {
  const root = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const values = () =>
    r.pick<unknown>([
      "x",
      "$prev",
      "",
      0,
      -1,
      1.5,
      1e9,
      true,
      null,
      [],
      {},
      ["a"],
      { kind: "think" },
      { get: ["input", "a"] },
      { get: ["x"] },
      { concat: [1] },
      { map: { a: 1 } },
      { prev: true },
      "15m",
      "0 7 * * *",
      "Bad Name",
    ]);
  for (let m = 1 + r.int(3); m > 0; m--) {
    let node: unknown = root;
    for (let d = r.int(8); d > 0; d--) {
      const keys = node && typeof node === "object" ? Object.keys(node) : [];
      if (keys.length === 0) break;
      const key = r.pick(keys);
      const child = (node as Record<string, unknown>)[key];
      if (!child || typeof child !== "object") break;
      node = child;
    }
    if (!node || typeof node !== "object") continue;
    const keys = Object.keys(node);
    const key = keys.length && r.next() < 0.8 ? r.pick(keys) : r.pick(["kind", "extra", "ms", "targets", "0"]);
    if (r.next() < 0.2) delete (node as Record<string, unknown>)[key];
    else (node as Record<string, unknown>)[key] = values();
  }
  return root;
}

describe("the compiler under random input", () => {
  it(`never throws anything but ScriptError on 3000 token soups (seed ${SEED})`, () => {
    const r = seededRandom(SEED);
    const failures: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const body = Array.from({ length: r.int(60) }, () => r.pick(tokens)).join(r.next() < 0.5 ? " " : "");
      const source = r.next() < 0.5 ? `(actor "a" (description "d") ${body}` : body;
      check(() => compileScript(source), `soup #${i} ${JSON.stringify(source).slice(0, 200)}`, failures);
    }
    expect(failures).toEqual([]);
  });

  it(`never throws anything but ScriptError on 4000 mutated examples (seed ${SEED + 1})`, () => {
    const r = seededRandom(SEED + 1);
    const failures: string[] = [];
    const outcomes = { ok: 0, error: 0 };
    for (let i = 0; i < 4000; i++) {
      const source = mutate(r.pick(examples), r);
      outcomes[
        check(
          () => compileScript(source, { knownTools: new Set(["git.diff"]) }),
          `mutant #${i} ${JSON.stringify(source)}`,
          failures,
        )
      ]++;
    }
    expect(failures).toEqual([]);
    // Mutations must reach both outcomes, or the test is not exercising the compiler.
    expect(outcomes.ok).toBeGreaterThan(100);
    expect(outcomes.error).toBeGreaterThan(100);
  });

  it(`never throws anything but ScriptError on 3000 mutated JSON scripts (seed ${SEED + 2})`, () => {
    const r = seededRandom(SEED + 2);
    const failures: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const value = mutateJson(devBuddyJson, r);
      check(() => compileScriptJson(value), `json mutant #${i} ${JSON.stringify(value).slice(0, 3000)}`, failures);
    }
    expect(failures).toEqual([]);
  });

  it("refuses deep nesting and huge input with a clear ScriptError instead of hanging", () => {
    const failures: string[] = [];
    for (const source of [
      "(".repeat(100_000),
      "[".repeat(5000) + "]".repeat(5000),
      `(actor "a" (description "d") (talent "t" (behavior "b" :active (goal (input) ${"(concat ".repeat(70)}"x"${")".repeat(70)}) (plan (input ctx) (think)))))`,
    ]) {
      check(() => compileScript(source), `deep ${source.slice(0, 40)}`, failures);
    }
    expect(failures).toEqual([]);
    expect(() => compileScript("(".repeat(100))).toThrow("nesting is too deep: more than 64 levels");
    expect(() => compileScript(" ".repeat(300_000))).toThrow(
      "the script is too long: 300000 characters, the limit is 262144",
    );
    let deep: unknown = "x";
    for (let i = 0; i < 10_000; i++) deep = { concat: [deep] };
    expect(() =>
      compileScriptJson({
        name: "a",
        description: "d",
        talents: [
          { name: "t", behaviors: [{ name: "b", mode: "active", goal: deep, plan: { steps: [{ kind: "think" }] } }] },
        ],
      }),
    ).toThrow("nesting is too deep");
  });
});
