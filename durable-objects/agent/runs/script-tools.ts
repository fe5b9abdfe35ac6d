import type { AgentProfile } from "../../../core/agents";
import {
  describeSandboxError,
  scriptToolSpec,
  type SandboxFetchResponse,
  type SandboxRunner,
  type StoredScriptTool,
} from "../../../core/sandbox";
import { makeGuardedFetch, type FetchFn, type ToolImplementation, type ToolRegistry } from "../../../core/tools";
import type { ToolSource } from "./tools";

/** Bytes of one response body a script's fetch hands back. */
const maxFetchBodyBytes = 1024 * 1024;

/** The secrets the agent's script tools declare: opened with its other tool secrets, redacted in its traces. */
export function scriptSecretNames(profile: Pick<AgentProfile, "scriptTools">): string[] {
  return [...new Set(Object.values(profile.scriptTools ?? {}).flatMap((tool) => tool.secrets))];
}

/**
 * The agent's script tools (the project's, as its profile carries the ones its tools list), each run
 * in the sandbox with exactly what it declares: its tools (through the agent's own tool registry, so
 * each call is checked, timed and redacted as any), the project secrets it names that the agent
 * holds, and `fetch` to its declared hosts behind the outbound guard; nothing else.
 * A tool call that needs a person's approval is refused inside a script (it has no way to wait), and so
 * is one that needs more than the `chat` scope: the run's gates are not on this path (code mode's calls will be).
 * @example
 * buildAgentTools(profile, { …, extra: [scriptToolSource(profile, { sandbox, fetch, secretValues, allowLoopback, tools: () => registry })] });
 */
export function scriptToolSource(
  profile: Pick<AgentProfile, "scriptTools">,
  deps: {
    sandbox: () => SandboxRunner;
    fetch: FetchFn;
    secretValues: Record<string, string>;
    allowLoopback: boolean;
    /** The agent's finished tool registry, read when a script calls a tool. */
    tools: () => ToolRegistry | undefined;
  },
): ToolSource {
  const tools = Object.values(profile.scriptTools ?? {});
  const implementations: Record<string, ToolImplementation> = Object.create(null) as Record<string, ToolImplementation>;
  for (const tool of tools) implementations[tool.name] = scriptImplementation(tool, deps);
  return { specs: tools.map(scriptToolSpec), implementations, secretNames: scriptSecretNames(profile) };
}

function scriptImplementation(
  tool: StoredScriptTool,
  deps: Parameters<typeof scriptToolSource>[1],
): ToolImplementation {
  const guarded =
    tool.hosts.length > 0
      ? makeGuardedFetch(deps.fetch, () => ({ allowHosts: tool.hosts, allowLoopback: deps.allowLoopback }))
      : undefined;
  return async (args, ctx) => {
    const secrets: Record<string, string> = {};
    for (const name of tool.secrets) if (deps.secretValues[name] !== undefined) secrets[name] = deps.secretValues[name];
    const callable: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {};
    for (const name of tool.tools) {
      callable[name] = async (toolArgs) => {
        const registry = deps.tools();
        const spec = registry?.get(name);
        if (!registry || !spec || name === tool.name)
          throw new Error(`tool '${name}' is not one of this agent's tools`);
        if (spec.requiresApproval)
          throw new Error(`tool '${name}' needs a person's approval for each call; a script cannot wait for one`);
        // The run's scope gate is not on this path: a tool that needs more than ordinary agent work is not lent to a script.
        if (spec.scope !== undefined && spec.scope !== "chat")
          throw new Error(
            `tool '${name}' needs the '${spec.scope}' scope; a script may call only tools of ordinary agent work`,
          );
        const outcome = await registry.invoke(name, toolArgs, { signal: ctx.signal, secrets: ctx.secrets });
        if (!outcome.ok) throw new Error(outcome.error.message);
        return outcome.output;
      };
    }
    const result = await deps.sandbox().run({
      codeId: tool.codeId,
      code: tool.code,
      input: args,
      host: {
        tools: callable,
        secrets,
        ...(guarded ? { fetch: (url, init) => fetchFor(guarded, url, init, ctx.signal) } : {}),
      },
    });
    if (!result.ok) throw new Error(`script tool '${tool.name}' failed: ${describeSandboxError(result.error)}`);
    return JSON.parse(result.json) as unknown;
  };
}

async function fetchFor(
  guarded: FetchFn,
  url: string,
  init: { method: string; headers: [string, string][]; body?: string },
  signal: AbortSignal,
): Promise<SandboxFetchResponse> {
  const response = await guarded(url, { method: init.method, headers: init.headers, body: init.body, signal });
  const buffer = await response.arrayBuffer();
  if (buffer.byteLength > maxFetchBodyBytes)
    throw new Error(
      `the response of ${url} is ${buffer.byteLength} bytes, over the ${maxFetchBodyBytes} a script may read`,
    );
  return { status: response.status, headers: [...response.headers], body: new TextDecoder().decode(buffer) };
}
