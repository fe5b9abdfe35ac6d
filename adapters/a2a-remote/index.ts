// A remote A2A agent as a Pantheon tool (`ask_<name>`), through the A2A SDK's own client (./ask.ts):
// it reads the agent's card, picks the JSON-RPC transport the card names (1.0, or 0.3 for older
// agents) and sends one blocking message. Every request — the card, the endpoint the card names,
// redirects — goes through the outbound guard with the agent's allowlist as it is at that moment.
// The SDK is loaded on the first call, not with the agent: most agents never ask a remote one.
import type { A2aAgentConfig } from "../../core/agents";
import {
  makeAgentToolSpec,
  makeGuardedFetch,
  toolSecretRefusal,
  type FetchFn,
  type ToolImplementation,
  type ToolSpec,
} from "../../core/tools";

/** The card's URL: the one given when it names a `.json` file, else the agent's base + the well-known path. */
export function cardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith(".json")) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/.well-known/agent-card.json`;
  return parsed.href;
}

export interface A2aAskToolOptions {
  peer: A2aAgentConfig;
  fetch: FetchFn;
  /** Read at each request, so a changed allowlist applies to the next one. */
  allowHosts: () => readonly string[];
  allowLoopback: boolean;
  /** The secrets the agent's project may use (its own, those granted to it). */
  toolSecrets: readonly string[];
  /** The project of those secrets, named in a refusal. */
  project?: string;
}

/**
 * The `ask_<name>` tool of a remote A2A agent: its spec (an HTTP-runtime tool, gated like any) and
 * its code. Header secrets are read per call from the agent's project secrets.
 * @example
 * const { spec, implementation } = makeA2aAskTool({ peer, fetch, allowHosts: () => runtime.allowHosts, allowLoopback: false, toolSecrets });
 */
export function makeA2aAskTool(options: A2aAskToolOptions): { spec: ToolSpec; implementation: ToolImplementation } {
  const { peer } = options;
  const base = makeAgentToolSpec(
    peer.name,
    `Ask the remote agent '${peer.name}' (A2A)${peer.description ? `: ${peer.description}` : " a question and get its answer."}`,
  );
  const spec: ToolSpec = { ...base, runtime: "http", ...(peer.timeoutMs ? { timeoutMs: peer.timeoutMs } : {}) };
  const guarded = makeGuardedFetch(options.fetch, () => ({
    allowHosts: options.allowHosts(),
    allowLoopback: options.allowLoopback,
  }));

  const implementation: ToolImplementation = async (args, ctx) => {
    const question = typeof args.question === "string" ? args.question : JSON.stringify(args);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(peer.headers)) {
      if (typeof value === "string") {
        headers[name] = value;
        continue;
      }
      const refusal = toolSecretRefusal(value.secret, options.toolSecrets, options.project, { list: !options.project });
      if (refusal) throw new Error(`refused: ${refusal} (header ${name})`);
      const secret = ctx.secrets[value.secret];
      if (secret === undefined) throw new Error(`secret '${value.secret}' (header ${name}) is not set for this agent`);
      headers[name] = secret;
    }
    const fetchImpl: typeof fetch = (input, init) => {
      const request = new Request(input instanceof Request ? input : String(input), { ...init, signal: ctx.signal });
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      return guarded(request);
    };
    const { askRemote } = await import("./ask");
    return askRemote({
      cardUrl: cardUrlOf(peer.url),
      question,
      messageId: ctx.idempotencyKey ?? crypto.randomUUID(),
      fetchImpl,
      signal: ctx.signal,
    });
  };
  return { spec, implementation };
}
