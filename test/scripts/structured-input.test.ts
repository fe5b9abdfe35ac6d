// Structured input on every door that starts a run: /v1 (an `input` field beside the messages),
// /mcp's ask_agent (an `input` argument), and a scheduled behavior's trigger (`:input {…}`).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createExecutionContext, createScheduledController, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { compileScript, compileScriptJson, isScriptError, printScript } from "../../core/dsl";
import worker from "../../workers/index";
import { adminToken, createAgent } from "../api/client";
import { getJson, putScript, runsOf } from "./helpers";

/** An agent whose one active behavior answers "Review <repo>" from its input, without a model. */
async function reviewer() {
  const agent = await createAgent();
  const put = await putScript(
    agent.name,
    `(actor "${agent.name}" (role "code-reviewer")
  (talent "review" (behavior "review-code" :active (goal (input) (concat "Review diff for " (get input "repo")))
    (plan (input ctx) (message "assistant" :content (concat "Reviewing " (get input "repo") " at " (get input "ref")))))))`,
  );
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  return agent.name;
}

const openai = () =>
  new OpenAI({
    apiKey: adminToken,
    baseURL: "https://pantheon.test/v1",
    fetch: (input, init) => SELF.fetch(input as RequestInfo, init as RequestInit),
    maxRetries: 0,
  });

describe("/v1/chat/completions takes an input object", () => {
  it("a behavior reads the input's fields, sent by the OpenAI SDK as an extra body field", async () => {
    const name = await reviewer();
    // The SDK sends fields it does not know as they are (Python: extra_body={"input": {...}}).
    const answer = await openai().chat.completions.create({
      model: name,
      messages: [{ role: "user", content: "please review" }],
      input: { repo: "acme/api", ref: "main" },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(answer.choices[0]?.message.content).toBe("Reviewing acme/api at main");
    const [run] = await runsOf(name);
    const { trace } = await getJson(`/api/agents/${name}/runs/${run.id}`);
    expect(trace.find((s: any) => s.name === "run_started").data.goal).toBe("Review diff for acme/api");
  });

  it("input instead of a user message: the request is the input; a field it lacks is null (concat writes nothing for it)", async () => {
    const name = await reviewer();
    const res = await SELF.fetch("https://pantheon.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: name,
        messages: [{ role: "system", content: "ignored" }],
        input: { repo: "acme/web" },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.choices[0].message.content).toBe("Reviewing acme/web at ");
  });

  it("an input that is not a JSON object of fields is refused naming the field", async () => {
    const name = await reviewer();
    for (const [input, param] of [
      ["acme/api", "input"],
      [{ "bad key": 1 }, "input.bad key"],
    ] as const) {
      const res = await SELF.fetch("https://pantheon.test/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ model: name, messages: [{ role: "user", content: "hi" }], input }),
      });
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as any;
      expect(error.param).toBe(param);
      expect(error.message.startsWith(`${param}: `)).toBe(true);
    }
  });
});

describe("/mcp ask_agent takes an input argument", () => {
  const open: Client[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });
  async function connect() {
    const transport = new StreamableHTTPClientTransport(new URL("https://pantheon.test/mcp"), {
      fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
      requestInit: { headers: { authorization: `Bearer ${adminToken}` } },
    });
    const client = new Client(
      { name: "pantheon-test", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(transport);
    open.push(client);
    return client;
  }
  const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

  it("the input reaches the agent's behaviors, with or without a message", async () => {
    const name = await reviewer();
    const client = await connect();
    const both = await client.callTool({
      name: "ask_agent",
      arguments: { agent: name, message: "review please", input: { repo: "acme/api", ref: "v2" } },
    });
    expect(both.isError).toBeFalsy();
    expect(textOf(both)).toBe("Reviewing acme/api at v2");
    const alone = await client.callTool({
      name: "ask_agent",
      arguments: { agent: name, input: { repo: "acme/cli", ref: "main" } },
    });
    expect(textOf(alone)).toBe("Reviewing acme/cli at main");
  });

  it("refuses a call with neither message nor input, and an input that is not an object, naming the argument", async () => {
    const name = await reviewer();
    const client = await connect();
    const none = await client.callTool({ name: "ask_agent", arguments: { agent: name } });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toBe(
      "ask_agent needs message, input, or both: message is what to say, input a JSON object of fields",
    );
    const bad = await client
      .callTool({ name: "ask_agent", arguments: { agent: name, input: ["acme/api"] } })
      .catch((error: Error) => ({ isError: true, content: [{ type: "text", text: error.message }] }));
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("input");
  });
});

describe("a scheduled behavior's trigger declares its input", () => {
  it("the design's form compiles, prints back, and the cron run gets that input", async () => {
    const agent = await createAgent();
    const put = await putScript(
      agent.name,
      `(actor "${agent.name}" (role "briefer")
  (talent "brief" (behavior "morning" :passive :cron "0 7 * * *" :input {:repo "acme/api" :depth 2}
    (goal (input) (concat "Brief on " (get input "repo") " (" (get input "trigger") ")"))
    (plan (input ctx) (message "assistant" :content (concat "Depth " (get input "depth")))))))`,
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const behavior = put.body.script.talents[0].behaviors[0];
    expect(behavior).toMatchObject({
      trigger: { kind: "cron", cron: "0 7 * * *" },
      input: { repo: "acme/api", depth: 2 },
    });
    expect(compileScript(printScript(put.body.script)).script.talents[0]!.behaviors[0]).toEqual(behavior);

    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.UTC(2030, 0, 7, 7, 0), cron: "* * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const runs = (await runsOf(agent.name)).filter((r) => r.trigger === "behavior:brief/morning");
    expect(runs).toHaveLength(1);
    const { run, trace } = await getJson(`/api/agents/${agent.name}/runs/${runs[0].id}`);
    expect(run.status).toBe("completed");
    expect(trace.find((s: any) => s.name === "run_started").data.goal).toBe("Brief on acme/api (cron)");
    expect(trace.find((s: any) => s.name === "run_finished").data.reply).toBe("Depth 2");
  });

  it("JSON scripts declare it as the behavior's input; an active behavior, a non-map or a reserved field is refused", () => {
    const json = compileScriptJson({
      name: "j",
      description: "d",
      talents: [
        {
          name: "t",
          behaviors: [
            {
              name: "b",
              mode: "persistent",
              trigger: { kind: "every", every: "1h" },
              input: { repo: "acme/api" },
              goal: { get: ["input", "repo"] },
              plan: { steps: [{ kind: "think" }] },
            },
          ],
        },
      ],
    });
    expect(json.script.talents[0]!.behaviors[0]!.input).toEqual({ repo: "acme/api" });
    const issuesOf = (source: string) => {
      try {
        compileScript(source);
      } catch (error) {
        if (isScriptError(error)) return error.issues;
        throw error;
      }
      throw new Error("compiled");
    };
    const actor = (behavior: string) => `(actor "a" (role "r") (talent "t" ${behavior}))`;
    expect(
      issuesOf(actor(`(behavior "b" :active :input {:repo "x"} (goal (input) "g") (plan (input ctx) (think)))`))[0]!
        .message,
    ).toBe("active behavior 'b' runs on each message, whose input it reads: it declares none");
    expect(
      issuesOf(
        actor(`(behavior "b" :passive :every "1h" :input "acme" (goal (input) "g") (plan (input ctx) (think)))`),
      )[0],
    ).toMatchObject({ form: "behavior", expected: 'a map of the input\'s fields, e.g. {:repo "acme/api"}' });
    expect(
      issuesOf(
        actor(`(behavior "b" :passive :every "1h" :input {:at 3} (goal (input) "g") (plan (input ctx) (think)))`),
      )[0]!.message,
    ).toContain("'trigger' and 'at' are set by the run itself");
    expect(
      issuesOf(actor(`(behavior "b" :passive :evry "1h" (goal (input) "g") (plan (input ctx) (think)))`))[0]!.message,
    ).toContain("unknown option :evry");
  });
});
