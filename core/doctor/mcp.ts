import type { DoctorCheck, DoctorFacts } from "./facts";

/** Each agent's MCP servers that need a person to authorise them again: their tools are unavailable until then. */
export function mcpChecks(facts: DoctorFacts): DoctorCheck[] {
  return facts.agents.flatMap((agent) =>
    (agent.mcpNeedsAuthorising ?? []).map(
      ({ server, reason }): DoctorCheck => ({
        id: `mcp:${agent.name}:${server}`,
        area: "mcp",
        status: "problem",
        message: `${agent.name}: the MCP server '${server}' needs authorising again (${reason}); its tools are unavailable`,
        fix: `open the agent's tools page in the PWA and press Authorise on '${server}' (or pantheon mcp list ${agent.name} for the URL)`,
      }),
    ),
  );
}
