import { SELF } from "cloudflare:test";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { jsonTooDeep } from "../../workers/validation";
import { adminToken, api, createAgent, uniqueName, type ErrorBody } from "./client";

/**
 * Bodies nested 10,000 deep (well inside the 64 KiB body limit) used to overflow a stack somewhere
 * past parsing (zod, structured clone, RPC) and answer 500. Every JSON door checks the depth right
 * after parsing: deeper than 64 levels is the client's mistake, a 400 that says the limit.
 */
const levels = 10_000;
const deep = {
  array: "[".repeat(levels) + "]".repeat(levels),
  object: '{"a":'.repeat(levels) + "1" + "}".repeat(levels),
};
/** `n` arrays inside each other around a 1. */
const nested = (n: number) => "[".repeat(n) + "1" + "]".repeat(n);
const message = "JSON nested deeper than 64 levels";

const send = (path: string, body: string, headers: Record<string, string> = {}, method = "POST") =>
  api(path, { method, body, headers: { "content-type": "application/json", ...headers } });

describe("jsonTooDeep", () => {
  it("counts arrays and objects as levels and points at the first container past the limit", () => {
    expect(jsonTooDeep(JSON.parse(nested(64)))).toBeNull();
    expect(jsonTooDeep(JSON.parse(nested(65)))).toEqual(Array(64).fill(0));
    expect(jsonTooDeep({ a: [{ b: 1 }], c: [[[]]] }, 3)).toEqual(["c", 0, 0]);
    expect(jsonTooDeep({ a: [{ b: 1 }], c: [[[]]] }, 4)).toBeNull();
    expect(jsonTooDeep("text")).toBeNull();
    expect(jsonTooDeep(null)).toBeNull();
  });

  it("does not recurse: a million levels are checked without a stack overflow", () => {
    let value: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) value = [value];
    expect(jsonTooDeep(value)).toHaveLength(64);
  });
});

describe("a JSON body nested deeper than 64 levels is a 400, never a 500", () => {
  it("on every /api route that takes JSON, at the top and inside a field", async () => {
    const agent = await createAgent();
    const a = `/api/agents/${agent.name}`;
    const routes: [string, string, (inner: string) => string][] = [
      [
        "POST",
        "/api/agents",
        (d) =>
          `{"name":"${uniqueName()}","runtime":{"allowHosts":["example.com"],"httpTools":[{"name":"t","description":"d","endpoint":"https://example.com","parameters":{"x":${d}}}]}}`,
      ],
      ["PATCH", a, (d) => `{"description":${d}}`],
      ["POST", `${a}/messages`, (d) => `{"content":"hi","x":${d}}`],
      ["POST", `${a}/sessions`, (d) => `{"title":${d}}`],
      ["PUT", `${a}/connections`, (d) => `{"connections":${d}}`],
      ["POST", `${a}/memories`, (d) => `{"text":"x","x":${d}}`],
      ["POST", `${a}/tools/clock.now/invoke`, (d) => `{"arguments":{"x":${d}}}`],
      ["POST", `${a}/runs/nope/approval`, (d) => `{"decision":"approve","x":${d}}`],
      ["POST", `${a}/sources/docs/documents`, (d) => `{"title":"t","text":${d}}`],
      ["POST", `${a}/mcp`, (d) => `{"name":"x","url":${d}}`],
      ["POST", "/api/tokens", (d) => `{"name":${d}}`],
    ];
    const failures: string[] = [];
    for (const [method, path, wrap] of routes) {
      for (const [shape, body] of Object.entries(deep)) {
        for (const [where, text] of [
          ["top", body],
          ["field", wrap(body)],
        ] as const) {
          const res = await send(path, text, {}, method);
          const error = ((await res.json()) as ErrorBody).error;
          if (res.status !== 400 || error.code !== "bad_request" || error.message !== message)
            failures.push(`${method} ${path} ${shape} at ${where}: ${res.status} ${error.code} ${error.message}`);
          else if (error.details?.issues?.[0]?.path.length !== 64)
            failures.push(
              `${method} ${path} ${shape} at ${where}: issue path ${JSON.stringify(error.details?.issues)}`,
            );
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("64 levels are accepted, 65 are not", async () => {
    // Levels: the body 1, runtime 2, httpTools 3, the tool 4, parameters 5, then the arrays of x from 6 on.
    const body = (arrays: number) =>
      `{"name":"${uniqueName()}","runtime":{"allowHosts":["example.com"],"httpTools":[{"name":"t","description":"d","endpoint":"https://example.com","parameters":{"x":${nested(arrays)}}}]}}`;
    expect((await send("/api/agents", body(59))).status).toBe(201);
    const refused = await send("/api/agents", body(60));
    expect(refused.status).toBe(400);
    const error = ((await refused.json()) as ErrorBody).error;
    expect(error.message).toBe(message);
    expect(error.details?.issues).toEqual([
      {
        path: ["runtime", "httpTools", 0, "parameters", "x", ...Array(59).fill(0)],
        message: "more than 64 levels of arrays and objects",
      },
    ]);
  });

  it("on PUT /script: a DSL nested 10,000 parens deep, and JSON scripts nested 10,000 deep, are script errors", async () => {
    const agent = await createAgent();
    const dsl = await send(
      `/api/agents/${agent.name}/script`,
      `(actor "${agent.name}" ${"(".repeat(levels)}${")".repeat(levels)})`,
      { "content-type": "text/x-pantheon" },
      "PUT",
    );
    expect(dsl.status).toBe(400);
    const dslError = (
      (await dsl.json()) as { error: { code: string; message: string; details: { issues: unknown[] } } }
    ).error;
    expect(dslError.code).toBe("script_invalid");
    expect(dslError.message).toBe(`1:${agent.name.length + 74} (script): nesting is too deep: more than 64 levels`);
    expect(dslError.details.issues).toEqual([
      {
        line: 1,
        column: agent.name.length + 74,
        form: "script",
        expected: "at most 64 levels of nesting",
        found: "a '(' at level 65",
        message: "nesting is too deep: more than 64 levels",
      },
    ]);
    for (const body of [
      deep.array,
      deep.object,
      `{"name":"${agent.name}","description":"x","talents":${deep.array}}`,
    ]) {
      const res = await send(`/api/agents/${agent.name}/script`, body, {}, "PUT");
      expect(res.status).toBe(400);
      const error = ((await res.json()) as ErrorBody).error;
      expect(error.code).toBe("script_invalid");
      expect(error.message).toContain("nesting is too deep");
    }
  });

  it("on the memory import and the snapshot restore, a line nested 10,000 deep is a 400 naming the line; nothing is kept", async () => {
    const agent = await createAgent();
    const kept = '{"kind":"fact","text":"kept"}';
    const doors = [
      { path: `/api/agents/${agent.name}/memories/import`, good: kept },
      { path: `/api/agents/${agent.name}/snapshot/restore`, good: '{"type":"memory","kind":"fact","text":"kept too"}' },
    ];
    const memories = async () =>
      ((await (await api(`/api/agents/${agent.name}/memories`)).json()) as { memories: unknown[] }).memories.length;
    for (const { path, good } of doors) {
      for (const line of [deep.array, deep.object, `{"kind":"fact","text":"x","entities":${deep.array}}`]) {
        const res = await send(path, `${good}\n${line}\n`, { "content-type": "application/x-ndjson" });
        expect(res.status, path).toBe(400);
        const error = ((await res.json()) as ErrorBody).error;
        expect(error).toMatchObject({ code: "bad_request", message: `line 2: ${message}` });
        expect(error.details?.issues).toEqual([
          { path: "line 2", message: "more than 64 levels of arrays and objects" },
        ]);
      }
    }
    expect(await memories()).toBe(0);
    // The controls: at the limit a line reaches the line reader, which reports it beside the good ones.
    const atLimit = await send(doors[0]!.path, `${kept}\n${nested(64)}\n`, { "content-type": "application/x-ndjson" });
    expect(atLimit.status).toBe(200);
    expect(await atLimit.json()).toMatchObject({ imported: 1, errors: [{ line: 2 }] });
    const restored = await send(doors[1]!.path, `${doors[1]!.good}\n`, { "content-type": "application/x-ndjson" });
    expect(restored.status).toBe(200);
    expect(await memories()).toBe(2);
  });

  it("on /v1/chat/completions, in OpenAI's error shape", async () => {
    const agent = await createAgent();
    for (const body of [
      deep.array,
      deep.object,
      `{"model":"${agent.name}","messages":[{"role":"user","content":"hi","metadata":${deep.object}}]}`,
      `{"model":"${agent.name}","messages":[{"role":"user","content":"hi"}],"user":${deep.array}}`,
    ]) {
      const res = await send("/v1/chat/completions", body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { message, type: "invalid_request_error", param: null, code: "bad_request" },
      });
    }
    // The OpenAI SDK passes unknown fields through; a deep one is its BadRequestError.
    let metadata: unknown = "x";
    for (let i = 0; i < 100; i++) metadata = { a: metadata };
    const client = new OpenAI({
      apiKey: adminToken,
      baseURL: "https://pantheon.test/v1",
      fetch: (input, init) => SELF.fetch(input as RequestInfo, init as RequestInit),
      maxRetries: 0,
    });
    const error = await client.chat.completions
      .create({ model: agent.name, messages: [{ role: "user", content: "hi" }], metadata } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(message);
  });

  it("on /mcp, as a JSON-RPC parse error", async () => {
    const mcp = (body: string) => send("/mcp", body, { accept: "application/json, text/event-stream" });
    for (const body of [
      deep.array,
      deep.object,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_agents","arguments":{"x":${deep.object}}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":${deep.array}}}`,
    ]) {
      const res = await mcp(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: `Parse error: ${message}`, data: { code: "bad_request", limit: 64 } },
        id: null,
      });
    }
    const ping = await mcp(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"x":${nested(60)}}}}`);
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    const broken = await mcp("{nope");
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe("/v1/chat/completions reads only JSON", () => {
  const request = (agent: string) => JSON.stringify({ model: agent, messages: [{ role: "user", content: "hello" }] });

  it("answers 415 in OpenAI's shape for a body sent as text/plain, a form, or without a type", async () => {
    const agent = await createAgent();
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await send("/v1/chat/completions", request(agent.name), { "content-type": type });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({
        error: {
          message: "send the chat completion request as JSON with 'Content-Type: application/json'",
          type: "invalid_request_error",
          param: null,
          code: "unsupported_media_type",
        },
      });
    }
    const untyped = await SELF.fetch("https://pantheon.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}` },
      body: new TextEncoder().encode(request(agent.name)),
    });
    expect(untyped.status).toBe(415);
    const history = (await (await api(`/api/agents/${agent.name}/messages`)).json()) as { messages: unknown[] };
    expect(history.messages).toEqual([]);
  });

  it("answers 400 for JSON that does not parse, and accepts JSON with a charset", async () => {
    const agent = await createAgent();
    const broken = await send("/v1/chat/completions", '{"model":', {});
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      error: {
        message: "the body is not valid JSON: send the chat completion request as JSON",
        type: "invalid_request_error",
        param: null,
        code: "bad_request",
      },
    });
    const ok = await send("/v1/chat/completions", request(agent.name), {
      "content-type": "application/json; charset=utf-8",
    });
    expect(ok.status).toBe(200);
  });
});
