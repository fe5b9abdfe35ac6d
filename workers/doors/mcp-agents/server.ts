// One agent as an MCP server (Streamable HTTP, stateless, at `/mcp/agents/:name`): its own tools
// (each call a manual run through the agent's gates and trace), `ask` (one turn), `search_memory`,
// and its context sources as resources. Built on the SDK's low-level Server because the tool list
// is the agent's, read per request, with its JSON Schemas as they are. Same stateless recipe as
// ../mcp/index.ts: a fresh server and transport per request.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { grants, type RunPrincipal, type Scope } from "../../../core/auth";
import { isPantheonError } from "../../../core/errors";
import {
  agentMcpScopes,
  askTool,
  manualCallResult,
  searchMemoryTool,
  sourceOfUri,
  sourceText,
  sourceUri,
  type ManualCallOutcome,
  type ToolResult,
} from "../../../core/protocols/agent-mcp";
import type { AgentDO } from "../../../durable-objects/agent/agent-do";
import { call, type Remote } from "../../../durable-objects/stubs";
import { sessionIdSchema } from "../../api/messages";
import { outcomeResult } from "../mcp/index";

export interface AgentMcpDeps {
  agent: Remote<AgentDO>;
  name: string;
  project: string;
  /** Who calls (the token's principal, in the trace) and what the token may do. */
  principal: string;
  scope: Scope;
  /** Whom the runs it starts (`ask`, a tool call) act for. */
  runPrincipal: RunPrincipal;
  version: string;
}

/**
 * A JSON-RPC error as the server sends it: its own words, no prefix. The SDK's McpError puts
 * "MCP error <code>: " in front of its message, the server sends that message as it is, and the
 * client's McpError puts the prefix in front again ("MCP error -32003: MCP error -32003: …"); the
 * SDK's server reads only `code`, `message` and `data` from what a handler throws.
 */
export class JsonRpcError extends Error {
  override readonly name = "JsonRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A call beyond the token's scope: a JSON-RPC error naming the scope, like the API's 403. */
const forbiddenCode = -32003;
function requireScope(deps: AgentMcpDeps, need: Scope): void {
  if (!grants(deps.scope, need)) {
    throw new JsonRpcError(
      forbiddenCode,
      `this needs a token with the '${need}' scope; this token has '${deps.scope}'`,
      { code: "forbidden", needed: need, scope: deps.scope },
    );
  }
}

const askArguments = z.strictObject({
  message: z.string().trim().min(1, "say something").max(32_000, "at most 32,000 characters"),
  session: sessionIdSchema.optional(),
});
const searchArguments = z.strictObject({
  query: z.string().trim().min(1, "search for something").max(2000, "at most 2,000 characters"),
  limit: z.number().int().min(1).max(50).optional(),
});

function parseArguments<S extends z.ZodType>(schema: S, args: unknown, tool: string): z.infer<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new JsonRpcError(ErrorCode.InvalidParams, `${tool}: ${issue.path.join(".") || "arguments"}: ${issue.message}`, {
    issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })),
  });
}

/** A domain failure (gate refusal, rate limit, unknown session) is the caller's to read: a tool error, not a protocol error. */
async function asToolResult(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (error) {
    if (isPantheonError(error))
      return { content: [{ type: "text", text: `${error.code}: ${error.message}` }], isError: true };
    throw error;
  }
}

/**
 * The MCP server of one agent. `tools/list` shows what the token may call: `ask` for every token;
 * `search_memory` and the agent's tools for `admin` (as their /api routes); resources likewise.
 * @example
 * const server = makeAgentMcpServer({ agent, name: "scout", project: "default", principal: "admin", scope: "admin", runPrincipal: { id: "admin", scope: "admin", name: "admin via mcp" }, version: "0.1.0" });
 * await server.connect(transport);
 */
export function makeAgentMcpServer(deps: AgentMcpDeps): Server {
  const { agent, name, project } = deps;
  const server = new Server(
    { name: `pantheon-${name}`, version: deps.version },
    {
      capabilities: { tools: {}, resources: {} },
      // The SDK's default validator (Ajv) compiles code at run time, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      instructions: `The Pantheon agent '${name}' (project '${project}'). ask sends it one message; its own tools run through its gates, and one that needs a person's approval is never approved here.`,
    },
  );

  const ownTools: Tool[] = [
    {
      name: askTool,
      description: `Sends one message to the agent '${name}' and answers its reply. Pass the same session to continue a conversation.`,
      inputSchema: {
        type: "object",
        properties: {
          message: { type: "string", description: "what to say" },
          session: { type: "string", description: "a session id from an earlier ask (structuredContent.sessionId)" },
        },
        required: ["message"],
        additionalProperties: false,
      },
      annotations: { openWorldHint: true },
    },
    {
      name: searchMemoryTool,
      description: `Searches what '${name}' remembers (words and meaning): the best memories, newest facts first among equals.`,
      inputSchema: {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 50 } },
        required: ["query"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
  ];

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: Tool[] = [ownTools[0]!];
    if (grants(deps.scope, agentMcpScopes.searchMemory)) tools.push(ownTools[1]!);
    if (grants(deps.scope, agentMcpScopes.agentTools)) {
      for (const spec of await call(agent.listTools())) {
        if (spec.name === askTool || spec.name === searchMemoryTool) continue;
        tools.push({
          name: spec.name,
          description: spec.description,
          inputSchema: spec.parameters as Tool["inputSchema"],
        });
      }
    }
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name: tool, arguments: args } = request.params;
    if (tool === askTool) {
      requireScope(deps, agentMcpScopes.ask);
      const { message, session } = parseArguments(askArguments, args, tool);
      return asToolResult(
        async () =>
          outcomeResult(
            name,
            await call(agent.chat({ content: message, ...(session ? { session } : {}), principal: deps.runPrincipal })),
          ) as ToolResult,
      );
    }
    if (tool === searchMemoryTool) {
      requireScope(deps, agentMcpScopes.searchMemory);
      const { query, limit } = parseArguments(searchArguments, args, tool);
      return asToolResult(async () => {
        const { memories } = await call(agent.listMemories({ q: query, limit: limit ?? 10 }));
        const found = memories.map((m) => ({ id: m.id, kind: m.kind, text: m.text, source: m.source }));
        const text = found.length
          ? found.map((m) => `- (${m.kind}) ${m.text} [${m.id}]`).join("\n")
          : `'${name}' remembers nothing about "${query}"`;
        return { content: [{ type: "text", text }], structuredContent: { memories: found } };
      });
    }
    requireScope(deps, agentMcpScopes.agentTools);
    const specs = await call(agent.listTools());
    if (!specs.some((s) => s.name === tool))
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `unknown tool '${tool}': tools/list names the tools of '${name}'`,
      );
    // A manual run: every gate (allowlist, schema, custom gates, rate limit, approval) and the trace.
    return asToolResult(async () =>
      manualCallResult(
        name,
        tool,
        (await call(
          agent.invokeTool(tool, (args ?? {}) as Record<string, unknown>, deps.runPrincipal),
        )) as ManualCallOutcome,
      ),
    );
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    if (!grants(deps.scope, agentMcpScopes.resources)) return { resources: [] };
    const sources = await call(agent.contextSources());
    return {
      resources: sources.map((source) => ({
        uri: sourceUri(project, name, source),
        name: source,
        title: source === "memory" ? `What ${name} remembers` : `${name}'s source '${source}'`,
        mimeType: "text/markdown",
      })),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    requireScope(deps, agentMcpScopes.resources);
    const source = sourceOfUri(request.params.uri, project, name);
    if (!source)
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `unknown resource '${request.params.uri}': resources/list names the sources of '${name}'`,
      );
    const found = await agent.readContextSource(source, 200);
    if (!found.ok) throw new JsonRpcError(ErrorCode.InvalidParams, found.message);
    return { contents: [{ uri: request.params.uri, mimeType: "text/markdown", text: sourceText(found.value) }] };
  });

  return server;
}
