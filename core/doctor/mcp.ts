import type { DoctorCheck, DoctorFacts } from "./facts";

/**
 * Each MCP server that needs a person to authorise it again, the project's (for all its agents)
 * and each agent's own: their tools are unavailable until then.
 */
export function mcpChecks(facts: DoctorFacts): DoctorCheck[] {
  const project = (facts.projectMcpNeedsAuthorising ?? []).map(
    ({ server, reason }): DoctorCheck => ({
      id: `mcp:project:${server}`,
      area: "mcp",
      status: "problem",
      message: `the project's MCP server '${server}' needs authorising again (${reason}); its tools are unavailable to every agent`,
      fix: `an admin opens the URL that pantheon mcp authorise --project-wide ${server} prints (or presses Authorise on an agent's tools page in the PWA)`,
    }),
  );
  const own = facts.agents.flatMap((agent) =>
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
  return [...project, ...own];
}
