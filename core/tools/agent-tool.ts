import type { ToolSpec } from "./tool-spec";

export const askPrefix = "ask_";

/**
 * A connection to another agent, seen by the model as the tool `ask_<agent>`.
 * @example
 * makeAgentToolSpec("airtable", "Keeps the CRM"); // { name: "ask_airtable", runtime: "agent", ... }
 */
export function makeAgentToolSpec(agent: string, description?: string): ToolSpec {
  return {
    name: `${askPrefix}${agent.toLowerCase().replace(/[^a-z0-9_-]/g, "_")}`,
    description: description ?? `Ask the agent '${agent}' a question and get its answer.`,
    parameters: {
      type: "object",
      properties: { question: { type: "string", minLength: 1 } },
      required: ["question"],
      additionalProperties: false,
    },
    runtime: "agent",
  };
}

/** The agent an `ask_<agent>` tool reaches. */
export function agentOfTool(name: string): string | undefined {
  return name.startsWith(askPrefix) ? name.slice(askPrefix.length) : undefined;
}
