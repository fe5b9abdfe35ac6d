// The project's agents as an MCP server (Streamable HTTP at `/mcp`), for Claude Desktop, IDEs and
// the MCP Inspector. Built on the official SDK's low-level pieces rather than the agents SDK's
// `createMcpHandler`: its stateless handler needs `@modelcontextprotocol/server` (not installed)
// and its sessionful one wants a Durable Object per session. Stateless mode needs neither: every
// request gets a fresh server and transport (the SDK's stateless recipe), so no protocol state
// outlives a request and any worker isolate can answer any request.
import { runPrincipal } from "../../auth";
import type { RunPrincipal } from "../../../core/auth";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import { z } from "zod";
import { isPantheonError, unknownAgent } from "../../../core/errors";
import { sessionIdSchema, structuredInput } from "../../api/messages";
import type { AppEnv } from "../../env";
import { door } from "../door";
import { agentStub, call, registryStub } from "../../../durable-objects/stubs";
import { isJsonMediaType, jsonShapeProblem, maxJsonDepth } from "../../validation";

/**
 * The MCP SDK's server pieces, loaded by the first `/mcp` request rather than at the worker's startup
 * (the SDK and its schemas are a large share of the startup CPU of an isolate that may never serve MCP).
 */
async function loadMcpSdk() {
  const [{ McpServer }, { WebStandardStreamableHTTPServerTransport }, { CfWorkerJsonSchemaValidator }] =
    await Promise.all([
      import("@modelcontextprotocol/sdk/server/mcp.js"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("@modelcontextprotocol/sdk/validation/cfworker"),
    ]);
  return { McpServer, WebStandardStreamableHTTPServerTransport, CfWorkerJsonSchemaValidator };
}

/** What the tools need: the worker's bindings and the project the bearer token was checked against. */
export interface McpServerDeps {
  env: Env;
  project: string;
  version: string;
  /** Whom the runs `ask_agent` starts act for: the bearer token's principal. */
  principal: RunPrincipal;
}

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError } : {}),
});

/** A domain failure (unknown session, rate limit, …) is the caller's to read, not a protocol error. */
async function asToolError(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (isPantheonError(error)) return text(`${error.code}: ${error.message}`, true);
    throw error;
  }
}

/** Null when the project has the agent; otherwise the error result that says so, in the words of every door (core/errors.ts). */
async function missingAgent(deps: McpServerDeps, agent: string): Promise<CallToolResult | null> {
  const found = await registryStub(deps.env, deps.project).getAgent(agent);
  if (found.ok) return null;
  const error = unknownAgent(agent, deps.project);
  return {
    ...text(`${error.code}: ${error.message}; list_agents names the agents you can ask`, true),
    structuredContent: { code: error.code, ...error.details },
  };
}

export function outcomeResult(
  agent: string,
  outcome: { runId: string; sessionId: string; status: string; reply: { content: string } | null; error?: string },
): CallToolResult {
  const structuredContent = { agent, runId: outcome.runId, sessionId: outcome.sessionId, status: outcome.status };
  if (outcome.status === "completed")
    return { content: [{ type: "text", text: outcome.reply?.content ?? "" }], structuredContent };
  const why =
    outcome.status === "waiting_approval"
      ? `run ${outcome.runId} of '${agent}' is waiting for approval of a tool call: a person must approve it in the Pantheon app (Approvals) or with \`pantheon runs approve ${agent} ${outcome.runId}\`; get_run shows where it stands`
      : outcome.status === "failed"
        ? `run ${outcome.runId} of '${agent}' failed: ${outcome.error ?? "no reason recorded"}`
        : outcome.status === "cancelled"
          ? `run ${outcome.runId} of '${agent}' was cancelled`
          : `run ${outcome.runId} of '${agent}' has not finished (${outcome.status}); get_run shows where it stands`;
  return { content: [{ type: "text", text: why }], structuredContent, isError: true };
}

interface RunView {
  run: {
    id: string;
    status: string;
    trigger: string;
    steps: number;
    tokens: number;
    error?: string;
    pending: { callId: string; tool: string }[];
  };
  trace: { seq: number; kind: string; name: string; durationMs: number }[];
}

/** A run in a few lines a person or a model can read: status first, then one line per trace step. */
function runSummary(agent: string, { run, trace }: RunView): string {
  const lines = [
    `run ${run.id} of '${agent}': ${run.status} (trigger ${run.trigger}, ${run.steps} steps, ${run.tokens} tokens)`,
  ];
  if (run.error) lines.push(`error: ${run.error}`);
  for (const p of run.pending) lines.push(`waiting for approval: ${p.tool} (call ${p.callId})`);
  for (const step of trace) lines.push(`${step.seq}. ${step.kind} ${step.name} ${step.durationMs} ms`);
  return lines.join("\n");
}

/**
 * One MCP server over a project's agents: `list_agents`, `ask_agent` (one chat turn, the reply as
 * text) and `get_run` (a run's status and trace). Approval-gated work is never approved here.
 * @example
 * const server = await makeMcpServer({ env, project: "default", version: "0.1.0", principal: runPrincipal(c, "mcp") });
 * await server.connect(transport);
 */
export async function makeMcpServer(deps: McpServerDeps): Promise<McpServer> {
  const { McpServer, CfWorkerJsonSchemaValidator } = await loadMcpSdk();
  const server = new McpServer(
    { name: "pantheon", version: deps.version },
    {
      // The SDK's default validator (Ajv) compiles code at run time, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      instructions: `The agents of the Pantheon project '${deps.project}'. list_agents names them; ask_agent sends one message and answers the reply.`,
    },
  );

  server.registerTool(
    "list_agents",
    {
      description: "Lists the agents of this project: their names and what each one does.",
      annotations: { readOnlyHint: true },
    },
    async () => {
      const agents = (await registryStub(deps.env, deps.project).listAgents()).map((a) => ({
        name: a.name,
        description: a.description,
      }));
      const body = agents.length
        ? agents.map((a) => `${a.name}: ${a.description}`).join("\n")
        : `project '${deps.project}' has no agents yet`;
      return { content: [{ type: "text", text: body }], structuredContent: { agents } };
    },
  );

  server.registerTool(
    "ask_agent",
    {
      description:
        "Sends one message to an agent and answers its reply. Pass the same session to continue a conversation; without one the agent's current session is used. A tool call that needs a person's approval is not approved here: the run waits and its id is reported.",
      inputSchema: {
        agent: z.string().min(1).max(64).describe("the agent's name, as list_agents gives it"),
        message: z
          .string()
          .trim()
          .min(1)
          .max(32_000)
          .optional()
          .describe("what to say to the agent (message, input, or both)"),
        input: structuredInput
          .optional()
          .describe(
            'structured input for the agent\'s behaviors, read as (get input "field"): a JSON object of at most 64 fields',
          ),
        session: sessionIdSchema
          .optional()
          .describe("a session id from an earlier ask_agent (structuredContent.sessionId)"),
      },
      annotations: { openWorldHint: true },
    },
    ({ agent, message, input, session }) =>
      asToolError(async () => {
        if (message === undefined && input === undefined)
          return {
            isError: true,
            content: [
              {
                type: "text",
                text: "ask_agent needs message, input, or both: message is what to say, input a JSON object of fields",
              },
            ],
          };
        const missing = await missingAgent(deps, agent);
        if (missing) return missing;
        const stub = await agentStub(deps.env, deps.project, agent);
        // Without a message the request is the input itself, as on POST …/messages.
        const content = message ?? JSON.stringify(input);
        return outcomeResult(
          agent,
          await call(
            stub.chat({
              content,
              ...(input ? { input } : {}),
              ...(session ? { session } : {}),
              principal: deps.principal,
            }),
          ),
        );
      }),
  );

  server.registerTool(
    "get_run",
    {
      description:
        "Shows one run of an agent: its status, what it waits for, and its trace (model calls, gate decisions, tool calls).",
      inputSchema: {
        agent: z.string().min(1).max(64).describe("the agent's name"),
        run: z.string().min(1).max(64).describe("the run id, as ask_agent reports it"),
      },
      annotations: { readOnlyHint: true },
    },
    ({ agent, run }) =>
      asToolError(async () => {
        const missing = await missingAgent(deps, agent);
        if (missing) return missing;
        const view = (await call((await agentStub(deps.env, deps.project, agent)).getRun(run))) as RunView;
        return { content: [{ type: "text", text: runSummary(agent, view) }], structuredContent: { run: view.run } };
      }),
  );

  return server;
}

/**
 * The JSON-RPC body, parsed here (from a copy) so its depth is checked before the SDK's zod schemas
 * recurse into it. Without `body` the SDK reads the request itself and answers in its own words:
 * not JSON by Content-Type (415) or not parseable (-32700).
 */
export async function readJsonRpc(request: Request): Promise<{ refused?: JsonRpcRefusal; body?: unknown }> {
  if (!isJsonMediaType(request.headers.get("content-type"))) return {};
  let body: unknown;
  try {
    body = JSON.parse(await request.clone().text());
  } catch {
    return {};
  }
  const shape = jsonShapeProblem(body);
  if (!shape) return { body };
  // Too deep is a parse error (-32700); a reserved key an invalid request (-32600) naming where.
  return shape.kind === "too_deep"
    ? {
        refused: {
          jsonrpc: "2.0",
          error: {
            code: -32700,
            message: `Parse error: ${shape.message}`,
            data: { code: "bad_request", limit: maxJsonDepth },
          },
          id: null,
        },
      }
    : {
        refused: {
          jsonrpc: "2.0",
          error: {
            code: -32600,
            message: `Invalid Request: ${shape.message}`,
            data: { code: "validation_failed", path: shape.path },
          },
          id: null,
        },
      };
}

/** The JSON-RPC error a body refused before the SDK reads it answers with (HTTP 400). */
export interface JsonRpcRefusal {
  jsonrpc: "2.0";
  error: { code: number; message: string; data: Record<string, unknown> };
  id: null;
}

/**
 * Answers one JSON-RPC request with a fresh stateless server (no session, a JSON answer), then closes
 * it: how both the project's server and each agent's serve a request.
 */
export async function answerStateless(
  server: Pick<McpServer, "connect" | "close">,
  request: Request,
  parsed: { body?: unknown },
): Promise<Response> {
  const { WebStandardStreamableHTTPServerTransport } = await loadMcpSdk();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, "body" in parsed ? { parsedBody: parsed.body } : undefined);
  } finally {
    await server.close();
  }
}

/**
 * The `/mcp` endpoint, behind its door (a token with the chat scope). Stateless: POST carries
 * JSON-RPC and answers JSON; there is no server-to-client stream to open (GET) or session to end
 * (DELETE), which the spec lets a server refuse with 405. A body nested deeper than 64 levels is a
 * JSON-RPC parse error (-32700, HTTP 400), like a body that is not JSON; one holding a `__proto__`
 * key an invalid request (-32600, HTTP 400) with its path.
 * @example
 * app.route("/mcp", mcpServerRoutes("0.1.0"));
 */
export function mcpServerRoutes(version: string) {
  return (
    new Hono<AppEnv>()
      // "/" (not "*"): mounted at /mcp, a wildcard would also run before /mcp/agents/*, which has its own door.
      .use("/", door("chat", { path: "/mcp" }))
      .post("/", async (c) => {
        const parsed = await readJsonRpc(c.req.raw);
        if (parsed.refused) return c.json(parsed.refused, 400);
        return answerStateless(
          await makeMcpServer({ env: c.env, project: c.get("project"), version, principal: runPrincipal(c, "mcp") }),
          c.req.raw,
          parsed,
        );
      })
      .on(["GET", "DELETE"], "/", (c) =>
        c.json(
          {
            jsonrpc: "2.0",
            error: { code: -32000, message: "this MCP server is stateless: send JSON-RPC with POST" },
            id: null,
          },
          405,
          { allow: "POST" },
        ),
      )
  );
}
