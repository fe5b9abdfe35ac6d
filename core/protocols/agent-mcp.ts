import type { ManualCall } from "../run/state";
// One agent as an MCP server (`/mcp/agents/:name`): the pure half. What each tool needs of a
// token, how a manual tool call's outcome reads as an MCP tool result, and how the agent's context
// sources are named and read as MCP resources. The shell is workers/doors/mcp-agents/.
import type { Scope } from "../auth";

/** The server's own tools, beside the agent's: one turn, and a search of the agent's memory. */
export const askTool = "ask";
export const searchMemoryTool = "search_memory";

/**
 * The scope each kind of tool needs, the same as its /api route: `ask` is a chat turn (POST
 * …/messages); `search_memory`, the resources and the agent's own tools are memory and tools, which
 * the API keeps for `admin` (GET …/memories, POST …/tools/:tool/invoke).
 */
export const agentMcpScopes = {
  ask: "chat",
  searchMemory: "admin",
  agentTools: "admin",
  resources: "admin",
} as const satisfies Record<string, Scope>;

/** A manual tool call's outcome (AgentDO `invokeTool`), as the shell receives it (core/run declares it). */
export type ManualCallOutcome = ManualCall;

/** An MCP tool result (CallToolResult's shape). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A manual call's outcome as an MCP tool result. A call that waits for approval has not run and is
 * never approved here: the result names the run and how a person approves it.
 * @example
 * manualCallResult("scout", "clock.now", { runId: "r1", status: "completed", ok: true, output: "{…}", truncated: false, ms: 2 })
 * // { content: [{ type: "text", text: "{…}" }], structuredContent: { runId: "r1", status: "completed", truncated: false } }
 */
export function manualCallResult(agent: string, tool: string, outcome: ManualCallOutcome): ToolResult {
  const base = { runId: outcome.runId, status: outcome.status };
  if ("pending" in outcome) {
    return {
      content: [
        {
          type: "text",
          text: `'${tool}' needs a person's approval and has not run: run ${outcome.runId} of '${agent}' waits (the Pantheon app's Approvals, or \`pantheon runs approve ${agent} ${outcome.runId}\`)`,
        },
      ],
      structuredContent: { ...base, pending: outcome.pending },
      isError: true,
    };
  }
  if ("waiting" in outcome) {
    return {
      content: [
        {
          type: "text",
          text: `'${tool}' asked another agent; its answer becomes the result of run ${outcome.runId} of '${agent}'`,
        },
      ],
      structuredContent: base,
    };
  }
  if (outcome.ok)
    return {
      content: [{ type: "text", text: outcome.output }],
      structuredContent: { ...base, truncated: outcome.truncated },
    };
  return { content: [{ type: "text", text: outcome.error.message }], structuredContent: base, isError: true };
}

/** The resource URI of one of an agent's context sources. */
export const sourceUri = (project: string, agent: string, source: string) =>
  `pantheon://${project}/agents/${agent}/sources/${source}`;

/** The source a resource URI names, or null when it is not one of this agent's. */
export function sourceOfUri(uri: string, project: string, agent: string): string | null {
  const prefix = sourceUri(project, agent, "");
  if (!uri.startsWith(prefix)) return null;
  const source = uri.slice(prefix.length);
  return /^[a-z0-9][a-z0-9_-]{0,63}$/.test(source) ? source : null;
}

/** Items of a source as one text: a title (documents) then the text, newest first, separated by blank lines. */
export function sourceText(items: { title?: string; text: string; kind: string }[], maxChars = 200_000): string {
  const parts: string[] = [];
  let size = 0;
  for (const item of items) {
    const part = item.title ? `# ${item.title}\n${item.text}` : `- (${item.kind}) ${item.text}`;
    if (size + part.length > maxChars) {
      parts.push(`… (${items.length - parts.length} more items not shown)`);
      break;
    }
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join("\n\n") || "(this source is empty)";
}
