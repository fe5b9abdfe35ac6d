import { makeA2aAskTool } from "../../../adapters/a2a-remote";
import { toolDenied, type AgentProfile } from "../../../core/agents";
import type { NamedSecret } from "../../../core/gates";
import type { Clock } from "../../../core/ports";
import { ownValue } from "../../../core/reserved-names";
import {
  declaredToolSecrets,
  encodeToolName,
  makeAgentToolSpec,
  makeClockTool,
  makeHttpFetchTool,
  makeHttpTool,
  makeToolRegistry,
  type FetchLike,
  type OutboundSettings,
  type ToolImplementation,
  type ToolRegistry,
  type ToolSpec,
} from "../../../core/tools";

/** Extra tools a feature contributes (MCP servers, memory, ...): declarations and code together. */
export interface ToolSource {
  specs: ToolSpec[];
  implementations: Record<string, ToolImplementation>;
  /** Secrets the source's tools read (script tools): kept in the agent's secrets so its traces are redacted of them. */
  secretNames?: string[];
  /**
   * For tools named by someone else (MCP servers): asked after every other source, with whether a name
   * (as the model's provider sees it) is declared already, so they take names that clash with none
   * rather than shadowing another tool or being dropped.
   */
  late?: (taken: (providerName: string) => boolean) => Pick<ToolSource, "specs" | "implementations">;
}

export interface AgentTools {
  /** Every tool the agent declares: what the allowlist gate lets through and what the model is shown. */
  specs: ToolSpec[];
  registry: ToolRegistry;
  /** Secret values by name, for tools' headers and for redacting traces. */
  secrets: Record<string, string>;
}

/**
 * Builds an agent's tools from its profile: the built-ins it declares, its operator HTTP tools and
 * remote A2A agents, one `ask_<agent>` tool per connection, plus what other features contribute.
 * Header secrets come from `secretValues`: the project's secrets the agent has opened (secrets/),
 * nothing else, so a name the project lacks is refused at the call; every outbound request passes
 * the guard with the agent's `runtime.allowHosts`.
 */
export function buildAgentTools(
  profile: AgentProfile,
  deps: {
    clock: Clock;
    fetch: FetchLike;
    secretValues: Record<string, string>;
    project: string;
    outbound: Pick<OutboundSettings, "allowLoopback">;
    extra?: ToolSource[];
  },
): AgentTools {
  const runtime = profile.runtime;
  const specs: ToolSpec[] = [];
  // No prototype: a tool an MCP server names `__proto__` or `constructor` is a key like any other.
  const implementations: Record<string, ToolImplementation> = Object.create(null) as Record<string, ToolImplementation>;
  const needsApproval = new Set(runtime.approvalRequired);
  const add = (spec: ToolSpec, implementation?: ToolImplementation) => {
    // The denylist wins over every source: a denied tool is neither shown to the model nor callable.
    if (specs.some((s) => s.name === spec.name) || toolDenied(spec.name, runtime.denyTools)) return;
    specs.push(needsApproval.has(spec.name) ? { ...spec, requiresApproval: true } : spec);
    if (implementation) implementations[spec.name] = implementation;
  };

  const { allowLoopback } = deps.outbound;
  const { project } = deps;
  const toolSecrets = Object.keys(deps.secretValues);
  const builtins = [
    makeClockTool(deps.clock),
    makeHttpFetchTool({ fetch: deps.fetch, allowHosts: runtime.allowHosts, allowLoopback }),
  ];
  for (const tool of builtins) if (runtime.tools.includes(tool.spec.name)) add(tool.spec, tool.implementation);

  const secretNames = new Set<string>();
  for (const tool of runtime.httpTools) {
    for (const value of Object.values(tool.headers)) if (typeof value !== "string") secretNames.add(value.secret);
    add(
      {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        runtime: "http",
        ...(tool.requiresApproval ? { requiresApproval: true } : {}),
        ...(tool.timeoutMs ? { timeoutMs: tool.timeoutMs } : {}),
        ...(tool.idempotent ? { idempotent: true } : {}),
      },
      makeHttpTool({
        endpoint: tool.endpoint,
        headers: tool.headers,
        fetch: deps.fetch,
        allowHosts: runtime.allowHosts,
        toolSecrets,
        project,
        allowLoopback,
      }),
    );
  }
  // Remote A2A agents the operator declared: `ask_<name>` like a connection, an HTTP call underneath.
  // The A2A client sends Requests; the injected transport takes a URL and init.
  const requestFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    return deps.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      redirect: request.redirect,
      signal: request.signal,
    });
  };
  for (const peer of runtime.a2aAgents ?? []) {
    for (const value of Object.values(peer.headers)) if (typeof value !== "string") secretNames.add(value.secret);
    const tool = makeA2aAskTool({
      peer,
      fetch: requestFetch,
      allowHosts: () => runtime.allowHosts,
      allowLoopback,
      toolSecrets,
      project,
    });
    add(tool.spec, tool.implementation);
  }
  for (const connection of profile.connections) {
    const description = ownValue(profile.connectionDescriptions, connection);
    add(makeAgentToolSpec(connection, description ? `Ask the agent '${connection}': ${description}` : undefined));
  }
  for (const source of deps.extra ?? []) {
    for (const spec of source.specs) add(spec, ownValue(source.implementations, spec.name));
    for (const name of source.secretNames ?? []) secretNames.add(name);
  }
  const declared = new Set(specs.map((spec) => encodeToolName(spec.name)));
  for (const source of deps.extra ?? []) {
    if (!source.late) continue;
    const late = source.late((providerName) => declared.has(providerName));
    for (const spec of late.specs) add(spec, ownValue(late.implementations, spec.name));
  }

  const secrets: Record<string, string> = {};
  // Only the names this agent's tools send: one tool's secret never reaches another agent's trace.
  for (const name of secretNames) if (deps.secretValues[name] !== undefined) secrets[name] = deps.secretValues[name];
  return { specs, registry: makeToolRegistry(specs, implementations), secrets };
}

/** Worker secrets an agent could come to see besides its tools' own: Pantheon's admin token and the model keys. */
const guardedSecrets = ["PANTHEON_ADMIN_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/**
 * The secrets the output gates keep out of everything an agent sends or stores: the project secrets
 * the agent holds (its tools' and its Telegram bot's), every PANTHEON_TOOL_SECRETS value (in every
 * project, as before), Pantheon's admin token and the model keys.
 * Names travel with values so a refusal can say which secret it found without saying the secret.
 * @example
 * outputSecrets(env, { ...tools.secrets, ...botSecrets }); // [{ name: "AIRTABLE_KEY", value: "…" }, …]
 */
export function outputSecrets(env: Record<string, unknown>, heldSecretValues: Record<string, string>): NamedSecret[] {
  const found = new Map<string, string>(Object.entries(heldSecretValues));
  // Every project's gates keep the deployment's tool secrets out, though only `default` may send them.
  const deployment = declaredToolSecrets(
    typeof env.PANTHEON_TOOL_SECRETS === "string" ? env.PANTHEON_TOOL_SECRETS : undefined,
  );
  for (const name of [...deployment, ...guardedSecrets]) {
    const value = env[name];
    if (typeof value === "string" && value && !found.has(name)) found.set(name, value);
  }
  return [...found].map(([name, value]) => ({ name, value }));
}
