import { env } from "cloudflare:test";
import type { ScriptStep } from "../doubles/scripted-model-server";
import { api, createAgent, uniqueName } from "../api/client";

export const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;

/**
 * An agent whose model is the scripted double (through the real openai SDK), with its own model
 * name. Its allowlist holds the double's host (127.0.0.1), which serves the HTTP tools of `httpTool`.
 */
export async function scriptedAgent(runtime: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const model = uniqueName("model");
  const agent = await createAgent({
    model: { provider: "openai", name: model },
    runtime: { tools: ["clock.now"], allowHosts: [new URL(doubleUrl()).hostname], ...runtime },
    ...extra,
  });
  return {
    name: agent.name,
    model,
    async script(steps: ScriptStep[]) {
      await fetch(`${doubleUrl()}/__script/${model}`, { method: "POST", body: JSON.stringify(steps) });
    },
    async modelCalls(): Promise<any[]> {
      return (await fetch(`${doubleUrl()}/__calls/${model}`)).json();
    },
    send(content: string, more: Record<string, unknown> = {}) {
      return api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content, ...more } }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      );
    },
    async run(runId: string): Promise<any> {
      return (await api(`/api/agents/${agent.name}/runs/${runId}`)).json();
    },
  };
}

/** An operator HTTP tool served by the double, recording its calls under `key`. */
export function httpTool(
  name: string,
  key: string,
  options: {
    query?: string;
    requiresApproval?: boolean;
    headers?: Record<string, unknown>;
    timeoutMs?: number;
    idempotent?: boolean;
  } = {},
) {
  return {
    name,
    description: `Test tool ${name}`,
    parameters: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false },
    endpoint: `${doubleUrl()}/__tool/${key}${options.query ? `?${options.query}` : ""}`,
    headers: options.headers ?? {},
    requiresApproval: options.requiresApproval ?? false,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.idempotent ? { idempotent: true } : {}),
  };
}

export async function toolCalls(key: string): Promise<any[]> {
  return (await fetch(`${doubleUrl()}/__tool-calls/${key}`)).json();
}

/** Polls until `check` passes (bounded): for work that completes in the background. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 300; i++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
}
