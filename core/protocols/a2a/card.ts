import type { AgentCard, AgentSkill } from "@a2a-js/sdk";

/** The tool list an agent card is built from (ToolSpec, narrowed). */
export interface CardTool {
  name: string;
  description: string;
  runtime: string;
  requiresApproval?: boolean;
}

/** The security scheme every Pantheon card names: the API's bearer token. */
export const bearerSchemeName = "bearer";

/**
 * An agent's A2A card: its name and description, one skill per tool (built-ins, HTTP and MCP tools,
 * and `ask_<agent>` for each connection), JSON-RPC at `url` in A2A 1.0 and 0.3, streaming, and the
 * API's bearer token as the one security scheme.
 * @example
 * agentCardOf({ name: "scout", description: "Finds things" }, tools, "https://p.example/a2a/agents/scout", "0.1.0");
 */
export function agentCardOf(
  agent: { name: string; description: string },
  tools: readonly CardTool[],
  url: string,
  version: string,
): AgentCard {
  const skills: AgentSkill[] = tools.map((tool) => ({
    id: tool.name,
    name: tool.name,
    description: tool.requiresApproval
      ? `${tool.description} (each call waits for a person's approval: the task becomes input-required)`
      : tool.description,
    tags: [tool.runtime === "agent" ? "connection" : tool.runtime, ...(tool.requiresApproval ? ["approval"] : [])],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  return {
    name: agent.name,
    description: agent.description || `The Pantheon agent '${agent.name}'.`,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    provider: { organization: "Pantheon", url: new URL(url).origin },
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [bearerSchemeName]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            scheme: "Bearer",
            bearerFormat: "Pantheon API token",
            description:
              "A Pantheon API token of the agent's project (chat scope to talk; approve scope to answer an approval)",
          },
        },
      },
    },
    securityRequirements: [{ schemes: { [bearerSchemeName]: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills,
    signatures: [],
  };
}
