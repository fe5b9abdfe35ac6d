import { builtinToolNames, encodeToolName, toolNamePattern } from "../../../core/tools";

/** Server names become the first segment of tool names, so they follow the tool-name rules. */
export const mcpServerNamePattern = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * `<server>.<tool>` in lowercase slug form: camelCase splits at its humps, anything outside
 * `[a-z0-9_-]` becomes `_`. Undefined when the result is not a valid tool name (too long, say).
 * @example
 * mcpToolName("github", "listPullRequests"); // "github.list_pull_requests"
 */
export function mcpToolName(server: string, tool: string): string | undefined {
  const slug = tool
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const name = `${server}.${slug}`;
  return slug && name.length <= 64 && toolNamePattern.test(name) ? name : undefined;
}

/**
 * Server names an MCP server may not take: the first segment of every built-in tool (`http`, `memory`,
 * `fs`, …, whether or not the agent has that tool enabled, so `http` offering `fetch` never becomes
 * `http.fetch`), `agent` (delegation) and `mcp` (where clashing tools are moved).
 */
export function mcpReservedServerNames(): ReadonlySet<string> {
  return (reserved ??= new Set(["agent", "mcp", ...builtinToolNames().map((name) => name.split(".")[0]!)]));
}
let reserved: Set<string> | undefined;

/** The rule, for a 400 naming `name`. */
export const mcpReservedServerNameMessage = (name: string) =>
  `'${name}' is the namespace of Pantheon's built-in tools (${[...mcpReservedServerNames()].sort().join(", ")}); choose another server name`;

/** One server's tools as the SDK lists them: the server's id and name, the tools' own names. */
export interface McpNamingInput {
  serverId: string;
  serverName: string;
  tools: readonly string[];
}

/**
 * The Pantheon name of every MCP tool of `servers`, each unique and none a built-in's: `<server>.<tool>`
 * (mcpToolName), moved to `mcp.<server>.<tool>` when its server's name is a built-in namespace (a
 * server connected before the name was refused) or the name is `taken` already, as the provider sees
 * it too (`a.b__c` and `a__b.c` are both `a__b__c` there), and numbered (`_2`, `_3`, …) when that is taken
 * as well: a clash renames a tool, never drops it silently. Tools whose name cannot be made valid (too
 * long) are left out. Keys are `<serverId>\n<tool>`.
 * @example
 * mcpToolNames([{ serverId: "a", serverName: "a", tools: ["listPrs", "list_prs"] }]);
 * // Map { "a\nlistPrs" => "a.list_prs", "a\nlist_prs" => "mcp.a.list_prs" }
 */
export function mcpToolNames(
  servers: readonly McpNamingInput[],
  taken: (providerName: string) => boolean = () => false,
): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>();
  const free = (name: string) =>
    name.length <= 64 && toolNamePattern.test(name) && !used.has(encodeToolName(name)) && !taken(encodeToolName(name));
  for (const server of servers) {
    const moved = mcpReservedServerNames().has(server.serverName);
    for (const tool of server.tools) {
      if (names.has(`${server.serverId}\n${tool}`)) continue;
      const base = mcpToolName(server.serverName, tool);
      if (!base) continue;
      const candidates = moved ? [`mcp.${base}`] : [base, `mcp.${base}`];
      let name = candidates.find(free);
      for (let n = 2; !name && n < 100; n++) if (free(`mcp.${base}_${n}`)) name = `mcp.${base}_${n}`;
      if (!name) continue;
      used.add(encodeToolName(name));
      names.set(`${server.serverId}\n${tool}`, name);
    }
  }
  return names;
}
