import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { makeWorkerLoaderSandbox } from "../../adapters/sandbox-worker-loader";
import { compileScript, type SandboxHost } from "../../core/sandbox";

const sandbox = makeWorkerLoaderSandbox(env.LOADER);
const none: SandboxHost = { tools: {}, secrets: {} };
const memoryLimit = "stopped at the memory limit: the call allocated over 128 MiB";

const script = (body: string, declaration = `{ name: "t", description: "a test script" }`) =>
  `export const tool = ${declaration};\nexport default async function (input: any, ctx: any) {\n${body}\n}\n`;

async function run(body: string, input: unknown = {}, host: SandboxHost = none, limits = {}) {
  const compiled = await compileScript(script(body));
  return sandbox.run({ codeId: compiled.codeId, code: compiled.code, input, host, limits });
}

describe("the Worker Loader sandbox", () => {
  it("runs a TypeScript script and returns its JSON result", async () => {
    const result = await run(`const rows: number[] = input.rows;\nreturn { max: Math.max(...rows), n: rows.length };`, {
      rows: [3, 9, 4],
    });
    expect(result).toEqual({ ok: true, json: '{"max":9,"n":3}' });
  });

  it("gives a script's error back with its message and the line it was thrown at", async () => {
    const result = await run(`const a = 1;\nthrow new Error("no rows given");`);
    // Line 1 is the declaration, 2 the function's head, 3 `const a`, 4 the throw.
    expect(result).toEqual({ ok: false, error: { kind: "script", message: "Error: no rows given", line: 4 } });
  });

  it("stops an endless loop at the step limit, and the next call runs (positive control beside it)", async () => {
    const loop = await run(`let n = 0;\nwhile (true) { n++; }`, {}, none, { steps: 100_000 });
    expect(loop).toMatchObject({ ok: false, error: { kind: "steps" } });
    const bounded = await run(`let n = 0;\nfor (let i = 0; i < 1000; i++) n++;\nreturn n;`, {}, none, {
      steps: 100_000,
    });
    expect(bounded).toEqual({ ok: true, json: "1000" });
  });

  it("stops a loop the script tries to keep going by catching the limit", async () => {
    const result = await run(`for (;;) { try { for (;;) {} } catch {} }`, {}, none, { steps: 10_000 });
    expect(result).toMatchObject({ ok: false, error: { kind: "steps" } });
  });

  it("has no network: fetch is refused without declared hosts", async () => {
    const result = await run(`return await fetch("http://127.0.0.1:1/").then(() => "reached", (e) => String(e));`);
    expect(result).toEqual({
      ok: true,
      json: JSON.stringify("TypeError: fetch refused: this script declares no hosts, so it has no network"),
    });
  });

  it("reaches only the tools and secrets its host offers", async () => {
    const host: SandboxHost = {
      tools: { "clock.now": async () => "2026-12-07T00:00:00Z" },
      secrets: { MINE: "s3cret" },
    };
    const ok = await run(`return [await ctx.tool("clock.now", {}), (await ctx.secret("MINE")).length];`, {}, host);
    expect(ok).toEqual({ ok: true, json: '["2026-12-07T00:00:00Z",6]' });
    const other = await run(`return await ctx.tool("http.fetch", { url: "x" });`, {}, host);
    expect(other).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("tool 'http.fetch' is not declared") },
    });
    const secret = await run(`return ctx.secret("OPENAI_API_KEY");`, {}, host);
    expect(secret).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("secret 'OPENAI_API_KEY' is not declared") },
    });
    const envKeys = await run(`return typeof env === "undefined" ? "no env" : Object.keys(env);`);
    expect(envKeys).toEqual({ ok: true, json: '"no env"' });
  });

  it("refuses a result over the size limit with a clear error; a small one passes", async () => {
    const big = await run(`return "x".repeat(50 * 1024 * 1024);`);
    expect(big).toMatchObject({ ok: false, error: { kind: "result_too_large" } });
    expect(big.ok === false && big.error.message).toMatch(/over the limit of 1048576 bytes/);
    expect(await run(`return "x".repeat(1000).length;`)).toEqual({ ok: true, json: "1000" });
  });

  it("a prototype polluted in one call is clean in the next", async () => {
    const source = script(
      `if (input.pollute) { (Object.prototype as any).polluted = "yes"; return "set"; }\nreturn ({} as any).polluted ?? "clean";`,
    );
    const compiled = await compileScript(source);
    const call = (input: unknown) => sandbox.run({ codeId: compiled.codeId, code: compiled.code, input, host: none });
    expect(await call({})).toEqual({ ok: true, json: '"clean"' });
    expect(await call({ pollute: true })).toEqual({ ok: true, json: '"set"' });
    expect(await call({})).toEqual({ ok: true, json: '"clean"' });
  });

  it("a huge allocation fails that call only", async () => {
    const huge = await run(`const a = new Uint8Array(64 * 1024 * 1024 * 1024);\nreturn a.length;`);
    expect(huge).toMatchObject({ ok: false, error: { kind: "memory", message: memoryLimit } });
    expect(await run(`return new Uint8Array(1024).length;`)).toEqual({ ok: true, json: "1024" });
  });

  // Without the meter each of these ends local workerd whole at V8's heap limit (~1.4 GB here: "V8
  // fatal error … JavaScript heap out of memory", every test of the run lost), as it was before it.
  it.each([
    [
      "arrays kept in a loop",
      `const keep: number[][] = [];\nfor (let i = 0; i < 1e9; i++) keep.push(new Array(1024).fill(i));\nreturn keep.length;`,
    ],
    [
      "objects kept in a loop",
      `const keep: object[] = [];\nfor (let i = 0; i < 1e9; i++) keep.push({ i, twice: { i } });\nreturn keep.length;`,
    ],
    ["an array doubled by spreading", `let a = [1];\nfor (let i = 0; i < 40; i++) a = [...a, ...a];\nreturn a.length;`],
    ["an array doubled by concat", `let a = [1];\nfor (let i = 0; i < 40; i++) a = a.concat(a);\nreturn a.length;`],
    ["a string doubled", `let s = "x";\nfor (let i = 0; i < 40; i++) s = s + s;\nreturn s.length;`],
    ["strings built in a loop", `let s = "";\nfor (let i = 0; i < 1e9; i++) s += \`row \${i}\`;\nreturn s.length;`],
    ["one huge array", `return new Array(2 ** 31).length;`],
    ["a huge repeat", `return "abc".repeat(1e9).length;`],
  ])("a script that fills its heap with %s stops at the memory limit, and the next call runs", async (_, body) => {
    const filled = await run(body);
    expect(filled).toMatchObject({ ok: false, error: { kind: "memory", message: memoryLimit } });
    expect(await run(`return [1, 2, 3].map((n) => n * 2);`)).toEqual({ ok: true, json: "[2,4,6]" });
  });

  it("a script that catches the memory limit cannot go on allocating; one that allocates within it answers", async () => {
    const caught = await run(
      `const keep: number[][] = [];\ntry { for (;;) keep.push(new Array(1024)); } catch { keep.length = 0; }\nreturn [keep.length, { more: [1] }];`,
    );
    expect(caught).toMatchObject({ ok: false, error: { kind: "memory" } });
    // The control: 100,000 rows of objects and strings, sorted and summed, well within the limit.
    const within = await run(
      `const rows = Array.from({ length: 100000 }, (_, i) => ({ name: \`row \${i}\`, size: (i * 7919) % 1000 }));\nconst top = rows.toSorted((a, b) => b.size - a.size).slice(0, 3);\nreturn { n: rows.length, top: top.map((r) => r.size), total: rows.reduce((t, r) => t + r.size, 0) };`,
    );
    expect(within).toEqual({ ok: true, json: '{"n":100000,"top":[999,999,999],"total":49950000}' });
  });
});
