import { env } from "cloudflare:test";
import { api, uniqueName } from "../api/client";

export const terminal = ["completed", "failed", "cancelled"];

/** A fresh project per test: its own registry, bus log and agents. */
export function project() {
  const name = uniqueName("bus");
  const call = (path: string, init: Parameters<typeof api>[1] = {}) => api(path, { ...init, headers: { ...(init.headers as Record<string, string>), "x-pantheon-project": name } });
  async function json<T = any>(path: string, init: Parameters<typeof api>[1] = {}): Promise<T> {
    const res = await call(path, init);
    if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
  return {
    name,
    api: call,
    json,
    async agent(agentName: string, overrides: Record<string, unknown> = {}) {
      return json("/api/agents", { method: "POST", json: { name: agentName, description: `${agentName} agent`, systemPrompt: `You are ${agentName}.`, ...overrides } });
    },
    connect(agentName: string, connections: string[]) {
      return json(`/api/agents/${agentName}/connections`, { method: "PUT", json: { connections } });
    },
    chat(agentName: string, content: string): Promise<{ runId: string; status: string; reply: { content: string } | null }> {
      return json(`/api/agents/${agentName}/messages`, { method: "POST", json: { content } });
    },
    /** Polls a run until it settles (bounded): queue delivery is asynchronous. */
    async settled(agentName: string, runId: string, until: (status: string) => boolean = (s) => terminal.includes(s)) {
      for (let i = 0; i < 600; i++) {
        const got = await json<{ run: { status: string; error?: string }; trace: { name: string; data: any }[] }>(`/api/agents/${agentName}/runs/${runId}`);
        if (until(got.run.status)) return got;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`run ${runId} of ${agentName} did not settle`);
    },
    /** Polls until `check` returns a value (bounded). */
    async until<T>(check: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
      for (let i = 0; i < 600; i++) {
        const value = await check();
        if (value) return value;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`gave up waiting for ${what}`);
    },
    /**
     * A delegation chain once its log has `hops` hops in a final state. The bus log reaches the
     * registry after the messages (no message waits on it), so right after a run settles it may lag.
     */
    async conversation(id: string, hops: number): Promise<any> {
      return this.until(async () => {
        const res = await call(`/api/conversations/${id}`);
        if (!res.ok) return null;
        const chain = (await res.json()) as { hops: { state: string }[] };
        return chain.hops.length >= hops && chain.hops.every((h) => h.state !== "sent" && h.state !== "applied") ? chain : null;
      }, `conversation ${id} with ${hops} settled hops`);
    },
    /** The reply a finished run gave (from its trace). */
    replyOf(run: { trace: { name: string; data: any }[] }): string {
      return run.trace.find((t) => t.name === "run_finished")?.data.reply ?? "";
    },
  };
}

/** Scripts the OpenAI-compatible double for one model name. */
const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;

export async function script(model: string, steps: unknown[]) {
  const res = await fetch(`${doubleUrl()}/__script/${encodeURIComponent(model)}`, { method: "POST", body: JSON.stringify(steps) });
  if (!res.ok) throw new Error(`script failed: ${res.status}`);
}

export async function modelCalls(model: string): Promise<any[]> {
  return (await fetch(`${doubleUrl()}/__calls/${encodeURIComponent(model)}`)).json();
}
