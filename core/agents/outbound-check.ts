import { validationFailed, type FieldIssue } from "../errors";
import { checkOutboundUrl, toolSecretRefusal, type OutboundSettings } from "../tools";
import type { AgentRuntime } from "./profile";

/**
 * What the deployment refuses in an agent's runtime before it is stored: an HTTP tool whose
 * header names a secret not declared for tools, or whose endpoint the outbound guard refuses
 * (private, loopback or metadata address, internal name, host not in `allowHosts`). Paths are
 * relative to the runtime. The same rules run again at each call.
 * @example
 * runtimeOutboundIssues(runtime, { toolSecrets: ["AIRTABLE_KEY"], allowLoopback: false });
 * // [{ path: ["httpTools", 0, "headers", "X-Key", "secret"], message: "secret 'OPENAI_API_KEY' is a model key …" }]
 */
export function runtimeOutboundIssues(
  runtime: Pick<AgentRuntime, "allowHosts" | "httpTools"> & Partial<Pick<AgentRuntime, "a2aAgents">>,
  settings: OutboundSettings,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  runtime.httpTools.forEach((tool, index) => {
    const check = checkOutboundUrl(tool.endpoint, runtime.allowHosts, { allowLoopback: settings.allowLoopback });
    if (!check.ok) {
      const message = check.host
        ? `HTTP tool '${tool.name}': ${check.reason}; add "${check.host}" to runtime.allowHosts`
        : `HTTP tool '${tool.name}': endpoint refused: ${check.reason}`;
      issues.push({ path: ["httpTools", index, "endpoint"], message });
    }
    for (const [header, value] of Object.entries(tool.headers)) {
      if (typeof value === "string") continue;
      const refusal = toolSecretRefusal(value.secret, settings.toolSecrets, settings.project);
      if (refusal)
        issues.push({
          path: ["httpTools", index, "headers", header, "secret"],
          message: `HTTP tool '${tool.name}': ${refusal}`,
        });
    }
  });
  (runtime.a2aAgents ?? []).forEach((peer, index) => {
    const check = checkOutboundUrl(peer.url, runtime.allowHosts, { allowLoopback: settings.allowLoopback });
    if (!check.ok) {
      const message = check.host
        ? `A2A agent '${peer.name}': ${check.reason}; add "${check.host}" to runtime.allowHosts`
        : `A2A agent '${peer.name}': url refused: ${check.reason}`;
      issues.push({ path: ["a2aAgents", index, "url"], message });
    }
    for (const [header, value] of Object.entries(peer.headers)) {
      if (typeof value === "string") continue;
      const refusal = toolSecretRefusal(value.secret, settings.toolSecrets, settings.project);
      if (refusal)
        issues.push({
          path: ["a2aAgents", index, "headers", header, "secret"],
          message: `A2A agent '${peer.name}': ${refusal}`,
        });
    }
  });
  return issues;
}

/**
 * Throws `validation_failed` (400) naming every refused field under `runtime`, the first one's
 * message as the error's.
 */
export function assertRuntimeOutbound(
  runtime: Pick<AgentRuntime, "allowHosts" | "httpTools"> & Partial<Pick<AgentRuntime, "a2aAgents">>,
  settings: OutboundSettings,
): void {
  const issues = runtimeOutboundIssues(runtime, settings).map((issue) => ({
    ...issue,
    path: ["runtime", ...issue.path],
  }));
  if (issues.length === 0) return;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  throw validationFailed(issues, `${issues[0]!.message}${more}`);
}

/**
 * Every secret name a runtime's HTTP tools and A2A agents send in a header: what the agent loads
 * from its project when it builds its tools.
 * @example
 * runtimeSecretNames({ httpTools: [{ headers: { "X-Key": { secret: "AIRTABLE_KEY" } } }], a2aAgents: [] }); // ["AIRTABLE_KEY"]
 */
export function runtimeSecretNames(
  runtime: Pick<AgentRuntime, "httpTools"> & Partial<Pick<AgentRuntime, "a2aAgents">>,
): string[] {
  const names = new Set<string>();
  for (const { headers } of [...runtime.httpTools, ...(runtime.a2aAgents ?? [])]) {
    for (const value of Object.values(headers)) if (typeof value !== "string") names.add(value.secret);
  }
  return [...names];
}
