import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { makeWorkerLoaderSandbox } from "../../adapters/sandbox-worker-loader";
import { compileScript, type SandboxHost } from "../../core/sandbox";

const sandbox = makeWorkerLoaderSandbox(env.LOADER);
const none: SandboxHost = { tools: {}, secrets: {} };

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
    expect(huge).toMatchObject({ ok: false, error: { kind: "script", message: expect.stringMatching(/RangeError/) } });
    expect(await run(`return new Uint8Array(1024).length;`)).toEqual({ ok: true, json: "1024" });
  });
});
