import { fromMcpTool } from "../../../core/tools";
import type { McpListedTool } from "./client";
import { mcpToolNames } from "./names";

/** An MCP tool as the agent sees it: its Pantheon name and the name the server knows it by. */
export interface McpToolView {
  name: string;
  mcpName: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The server says the tool is read-only or idempotent. */
  idempotent?: boolean;
}

/** The tools of each server under their Pantheon names (names.ts `mcpToolNames`: unique, none a built-in's). */
export const toolsOf = (
  servers: { id: string; name: string }[],
  listed: McpListedTool[],
  taken?: (providerName: string) => boolean,
): Map<string, McpToolView[]> => {
  const names = mcpToolNames(
    servers.map((server) => ({
      serverId: server.id,
      serverName: server.name,
      tools: listed.filter((tool) => tool.serverId === server.id).map((tool) => tool.name),
    })),
    taken,
  );
  const views = new Map<string, McpToolView[]>(servers.map((server) => [server.id, []]));
  for (const tool of listed) {
    const name = names.get(`${tool.serverId}\n${tool.name}`);
    const view = views.get(tool.serverId);
    if (!name || !view || view.some((v) => v.mcpName === tool.name)) continue;
    const spec = fromMcpTool({
      name,
      inputSchema: tool.inputSchema,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    });
    view.push({
      name,
      mcpName: tool.name,
      description: spec.description,
      parameters: spec.parameters,
      ...(spec.idempotent ? { idempotent: true } : {}),
    });
  }
  return views;
};
