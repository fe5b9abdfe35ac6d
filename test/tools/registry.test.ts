import { describe, expect, it } from "vitest";
import {
  makeClockTool,
  makeHttpTool,
  makeToolRegistry,
  redactDeep,
  redactSecrets,
  toolsOf,
  truncateToBytes,
  validateArguments,
  type ToolSpec,
} from "../../core/tools";
import { advance, newRunState } from "../../core/run";
import { defaultRunLimits } from "../../core/run/limits";
import { builtinGates } from "../../core/gates";

const echo: ToolSpec = {
  name: "text.echo",
  description: "Echo",
  parameters: {
    type: "object",
    properties: { text: { type: "string" }, times: { type: "integer", minimum: 1 } },
    required: ["text"],
    additionalProperties: false,
  },
  runtime: "builtin",
};

describe("argument validation", () => {
  it("names each bad field and what is wrong with it", () => {
    const check = validateArguments(echo.parameters, { times: 0, extra: true });
    expect(check.valid).toBe(false);
    if (check.valid) return;
    expect(check.issues).toEqual(
      expect.arrayContaining([
        { path: ["text"], message: "is required" },
        { path: ["times"], message: expect.stringContaining("less than 1") },
        { path: ["extra"], message: "is not allowed here" },
      ]),
    );
    expect(check.issues.some((issue) => issue.path.length === 0)).toBe(false);
  });

  it("accepts valid arguments", () => {
    expect(validateArguments(echo.parameters, { text: "hi", times: 2 })).toEqual({ valid: true });
  });
});

describe("truncation", () => {
  it("cuts a long result to the byte budget with an explicit marker", () => {
    const cut = truncateToBytes("x".repeat(67890), 12345);
    expect(cut.truncated).toBe(true);
    expect(cut.text.endsWith("…[truncated: 12345 of 67890 bytes shown]")).toBe(true);
    expect(cut.text.startsWith("x".repeat(12345) + "\n")).toBe(true);
  });

  it("never splits a multi-byte character", () => {
    const cut = truncateToBytes("é".repeat(10), 5);
    expect(cut.text).toBe("éé\n…[truncated: 4 of 20 bytes shown]");
  });

  it("leaves a short result alone", () => {
    expect(truncateToBytes("short", 100)).toEqual({ text: "short", truncated: false, totalBytes: 5 });
  });
});

describe("tool registry", () => {
  const registry = makeToolRegistry(
    [echo],
    { "text.echo": async (args) => String(args.text).repeat(Number(args.times ?? 1)) },
    { maxOutputBytes: 10 },
  );

  it("lists its tools and finds them by declared or provider name", () => {
    expect(registry.list().map((s) => s.name)).toEqual(["text.echo"]);
    expect(registry.get("text__echo")?.name).toBe("text.echo");
  });

  it("runs a tool and returns its output", async () => {
    expect(await registry.invoke("text.echo", { text: "hi", times: 2 })).toEqual({
      ok: true,
      output: "hihi",
      truncated: false,
    });
  });

  it("refuses invalid arguments with field-level issues, without running the tool", async () => {
    let ran = false;
    const strict = makeToolRegistry([echo], { "text.echo": async () => ((ran = true), "ran") });
    const outcome = await strict.invoke("text.echo", { times: "many" });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("invalid_arguments");
    expect(outcome.error.issues?.map((i) => i.path)).toEqual(expect.arrayContaining([["text"], ["times"]]));
    expect(ran).toBe(false);
  });

  it("marks a result cut to the byte budget", async () => {
    const outcome = await registry.invoke("text.echo", { text: "abcdef", times: 5 });
    expect(outcome).toEqual({ ok: true, output: "abcdefabcd\n…[truncated: 10 of 30 bytes shown]", truncated: true });
  });

  it("reports an unknown tool", async () => {
    const outcome = await registry.invoke("shell.exec", {});
    expect(outcome.ok === false && outcome.error.code).toBe("unknown_tool");
  });

  it("gives up on a tool that runs past its time limit, and aborts its signal", async () => {
    let signal: AbortSignal | undefined;
    const slow = makeToolRegistry([echo], {
      "text.echo": (_args, ctx) => ((signal = ctx.signal), new Promise(() => undefined)),
    });
    const outcome = await slow.invoke("text.echo", { text: "x" }, { timeoutMs: 20 });
    expect(outcome).toEqual({
      ok: false,
      error: { code: "timeout", message: "tool 'text.echo' timed out after 20 ms" },
    });
    expect(signal?.aborted).toBe(true);
  });

  it("reports a call cancelled by the caller", async () => {
    const controller = new AbortController();
    const slow = makeToolRegistry([echo], { "text.echo": () => new Promise(() => undefined) });
    const pending = slow.invoke("text.echo", { text: "x" }, { signal: controller.signal, timeoutMs: 60_000 });
    controller.abort();
    const outcome = await pending;
    expect(outcome.ok === false && outcome.error.code).toBe("aborted");
  });

  it("tells the current time through clock.now", async () => {
    const clockTools = toolsOf([makeClockTool({ now: () => Date.UTC(2025, 0, 2, 3, 4, 5) })]);
    const outcome = await makeToolRegistry(clockTools.specs, clockTools.implementations).invoke("clock__now", {});
    expect(outcome).toEqual({
      ok: true,
      output: JSON.stringify({ iso: "2025-01-02T03:04:05.000Z", epochMs: Date.UTC(2025, 0, 2, 3, 4, 5) }),
      truncated: false,
    });
  });
});

describe("operator HTTP tools and secrets", () => {
  const secret = "key-8f3a9c1d77";
  const airtable: ToolSpec = {
    name: "airtable.add",
    description: "Add a row",
    parameters: { type: "object", properties: { row: { type: "object" } } },
    runtime: "http",
  };
  const outbound = { allowHosts: ["hooks.example.com", "h.example.com"], toolSecrets: ["AIRTABLE_KEY"] };

  it("POSTs the arguments as JSON with the header resolved from the named secret at call time", async () => {
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    const fetch = async (url: string, init?: RequestInit) => (seen.push({ url, init }), new Response("created"));
    const tools = makeToolRegistry([airtable], {
      "airtable.add": makeHttpTool({
        endpoint: "https://hooks.example.com/add",
        headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } },
        fetch,
        ...outbound,
      }),
    });
    const outcome = await tools.invoke("airtable.add", { row: { a: 1 } }, { secrets: { AIRTABLE_KEY: secret } });
    expect(outcome).toEqual({ ok: true, output: "created", truncated: false });
    expect(seen[0]?.url).toBe("https://hooks.example.com/add");
    expect(seen[0]?.init?.method).toBe("POST");
    expect(seen[0]?.init?.body).toBe('{"row":{"a":1}}');
    expect((seen[0]?.init?.headers as Record<string, string>)["X-Api-Key"]).toBe(secret);
  });

  it("never lets a secret value appear in the tool's result, error or trace record", async () => {
    const echoing = async (_url: string, init?: RequestInit) =>
      new Response(`your key is ${(init?.headers as Record<string, string>)["X-Api-Key"]}`);
    const failing = async (_url: string, init?: RequestInit) =>
      new Response(`bad key ${(init?.headers as Record<string, string>)["X-Api-Key"]}`, { status: 401 });
    const options = { secrets: { AIRTABLE_KEY: secret } };
    const ok = await makeToolRegistry([airtable], {
      "airtable.add": makeHttpTool({
        endpoint: "https://h.example.com",
        headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } },
        fetch: echoing,
        ...outbound,
      }),
    }).invoke("airtable.add", {}, options);
    const bad = await makeToolRegistry([airtable], {
      "airtable.add": makeHttpTool({
        endpoint: "https://h.example.com",
        headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } },
        fetch: failing,
        ...outbound,
      }),
    }).invoke("airtable.add", {}, options);
    const thrown = await makeToolRegistry([airtable], {
      "airtable.add": async () => {
        throw new Error(`connect failed with ${secret}`);
      },
    }).invoke("airtable.add", {}, options);
    expect(ok).toEqual({ ok: true, output: "your key is [redacted]", truncated: false });
    expect(bad.ok === false && bad.error.message).toBe("endpoint answered 401: bad key [redacted]");
    expect(thrown.ok === false && thrown.error.message).toBe("connect failed with [redacted]");

    // The trace of a run whose model echoed the secret into a tool argument, written as the DO writes it.
    const run = newRunState({ id: "r", agent: "a", sessionId: "s", limits: defaultRunLimits });
    const deps = { now: 0, tools: [airtable], gates: builtinGates() };
    const started = advance(run, { type: "start", message: { role: "user", content: "go" }, context: [] }, deps);
    const proposed = advance(
      started.state,
      {
        type: "model_result",
        response: {
          content: "",
          toolCalls: [{ id: "c1", name: "airtable.add", arguments: { row: { note: secret } } }],
          finishReason: "tool_calls",
          usage: { inputTokens: 1, outputTokens: 1 },
          model: "m",
        },
      },
      deps,
    );
    const traced = [...started.effects, ...proposed.effects].filter((e) => e.type === "trace");
    expect(JSON.stringify(traced)).toContain(secret);
    expect(JSON.stringify(redactDeep(traced, [secret]))).not.toContain(secret);
  });

  it("refuses a call whose secret is not set, naming the secret but no value", async () => {
    const tools = makeToolRegistry([airtable], {
      "airtable.add": makeHttpTool({
        endpoint: "https://h.example.com",
        headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } },
        fetch: async () => new Response(""),
        ...outbound,
      }),
    });
    const outcome = await tools.invoke("airtable.add", {});
    expect(outcome.ok === false && outcome.error.message).toBe(
      "secret 'AIRTABLE_KEY' (header X-Api-Key) is not set for this agent",
    );
  });

  it("refuses at call time a secret not declared for tools, and Pantheon's own even when declared, sending nothing", async () => {
    const seen: string[] = [];
    const fetch = async (url: string) => (seen.push(url), new Response("sent"));
    const env = { AIRTABLE_KEY: secret, OPENAI_API_KEY: "sk-model", PANTHEON_ADMIN_TOKEN: "admin" };
    const call = (name: string, toolSecrets: string[]) =>
      makeToolRegistry([airtable], {
        "airtable.add": makeHttpTool({
          endpoint: "https://h.example.com",
          headers: { "X-Key": { secret: name } },
          fetch,
          allowHosts: ["h.example.com"],
          toolSecrets,
        }),
      }).invoke("airtable.add", {}, { secrets: env });
    const model = await call("OPENAI_API_KEY", ["AIRTABLE_KEY"]);
    expect(model.ok === false && model.error.message).toBe(
      "refused: secret 'OPENAI_API_KEY' is a model key and never reaches a tool; tools may use: AIRTABLE_KEY (header X-Key)",
    );
    const admin = await call("PANTHEON_ADMIN_TOKEN", ["AIRTABLE_KEY", "PANTHEON_ADMIN_TOKEN"]);
    expect(admin.ok === false && admin.error.message).toBe(
      "refused: secret 'PANTHEON_ADMIN_TOKEN' is Pantheon's own and never reaches a tool; tools may use: AIRTABLE_KEY, PANTHEON_ADMIN_TOKEN (header X-Key)",
    );
    const undeclared = await call("AIRTABLE_KEY", []);
    expect(undeclared.ok === false && undeclared.error.message).toBe(
      "refused: secret 'AIRTABLE_KEY' is not declared for tools: no secrets are declared for tools (PANTHEON_TOOL_SECRETS is empty); add its name there to let tools use it (header X-Key)",
    );
    expect(seen).toEqual([]);
    expect((await call("AIRTABLE_KEY", ["AIRTABLE_KEY"])).ok).toBe(true);
    expect(seen).toEqual(["https://h.example.com/"]);
  });

  it("refuses at call time an endpoint the outbound guard refuses: not on the allowlist, or a private or metadata address", async () => {
    const seen: string[] = [];
    const fetch = async (url: string) => (seen.push(url), new Response("sent"));
    const call = (endpoint: string, allowHosts: string[], allowLoopback = false) =>
      makeToolRegistry([airtable], {
        "airtable.add": makeHttpTool({ endpoint, fetch, allowHosts, toolSecrets: [], allowLoopback }),
      }).invoke("airtable.add", {});
    const off = await call("https://elsewhere.example.net/hook", ["h.example.com"]);
    expect(off.ok === false && off.error.message).toBe(
      "refused: host elsewhere.example.net is not on this agent's allowlist",
    );
    const metadata = await call("http://169.254.169.254/latest/meta-data", ["169.254.169.254"], true);
    expect(metadata.ok === false && metadata.error.message).toBe(
      "refused: 169.254.169.254 is in the link-local (cloud metadata) range",
    );
    const loopback = await call("http://127.0.0.1:8080/hook", ["127.0.0.1"]);
    expect(loopback.ok === false && loopback.error.message).toBe("refused: 127.0.0.1 is in the loopback range");
    expect(seen).toEqual([]);
    expect((await call("http://127.0.0.1:8080/hook", ["127.0.0.1"], true)).ok).toBe(true);
  });

  it("never follows a redirect: the Location is not fetched and the call fails saying so", async () => {
    const seen: string[] = [];
    const fetch = async (url: string, init?: RequestInit) => {
      seen.push(`${url} ${init?.redirect}`);
      return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } });
    };
    const outcome = await makeToolRegistry([airtable], {
      "airtable.add": makeHttpTool({ endpoint: "https://h.example.com/hook", fetch, ...outbound }),
    }).invoke("airtable.add", {});
    expect(outcome.ok === false && outcome.error.message).toBe(
      "endpoint answered 302 (redirect to http://169.254.169.254/latest/meta-data); redirects are not followed",
    );
    expect(seen).toEqual(["https://h.example.com/hook manual"]);
  });

  it("redacts the longest secret first, so one that contains another is hidden whole", () => {
    expect(redactSecrets("a=abcd-efgh b=abcd", ["abcd", "abcd-efgh"])).toBe("a=[redacted] b=[redacted]");
  });
});
