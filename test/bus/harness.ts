import { env } from "cloudflare:test";
import { api, uniqueName } from "../api/client";
import { finalBusStates } from "../../core/bus";

export const terminal = ["completed", "failed", "cancelled"];

/** A fresh project per test: its own registry, bus log and agents. */
export function project() {
  const name = uniqueName("bus");
  const call = (path: string, init: Parameters<typeof api>[1] = {}) =>
    api(path, { ...init, headers: { ...(init.headers as Record<string, string>), "x-pantheon-project": name } });
  async function json<T = any>(path: string, init: Parameters<typeof api>[1] = {}): Promise<T> {
    const res = await call(path, init);
    if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
  /** Polls until `check` returns a value (bounded). */
  async function until<T>(check: () => Promise<T | undefined | null | false>, what: string): Promise<T> {
    for (let i = 0; i < 600; i++) {
      const value = await check();
      if (value) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`gave up waiting for ${what}`);
  }
  return {
    name,
    api: call,
    json,
    async agent(agentName: string, overrides: Record<string, unknown> = {}) {
      return json("/api/agents", {
        method: "POST",
        json: {
          name: agentName,
          description: `${agentName} agent`,
          systemPrompt: `You are ${agentName}.`,
          ...overrides,
        },
      });
    },
    connect(agentName: string, connections: string[]) {
      return json(`/api/agents/${agentName}/connections`, { method: "PUT", json: { connections } });
    },
    chat(
      agentName: string,
      content: string,
    ): Promise<{ runId: string; status: string; reply: { content: string } | null }> {
      return json(`/api/agents/${agentName}/messages`, { method: "POST", json: { content } });
    },
    /** Polls a run until it settles (bounded): queue delivery is asynchronous. */
    async settled(agentName: string, runId: string, until: (status: string) => boolean = (s) => terminal.includes(s)) {
      for (let i = 0; i < 600; i++) {
        const got = await json<{ run: { status: string; error?: string }; trace: { name: string; data: any }[] }>(
          `/api/agents/${agentName}/runs/${runId}`,
        );
        if (until(got.run.status)) return got;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`run ${runId} of ${agentName} did not settle`);
    },
    until,
    /**
     * A delegation chain once its log shows `hops` hops, each in a final state. The bus log is written
     * just after the messages (a burst per agent, never awaited by one), so a run can settle first.
     */
    chain(conversationId: string, hops: number): Promise<any> {
      return until(async () => {
        const res = await call(`/api/conversations/${conversationId}`);
        const body = res.ok ? await res.json<any>() : null;
        return body && body.hops.length >= hops && body.hops.every((h: any) => finalBusStates.includes(h.state))
          ? body
          : null;
      }, `conversation ${conversationId} to show ${hops} settled hops`);
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
  const res = await fetch(`${doubleUrl()}/__script/${encodeURIComponent(model)}`, {
    method: "POST",
    body: JSON.stringify(steps),
  });
  if (!res.ok) throw new Error(`script failed: ${res.status}`);
}

export async function modelCalls(model: string): Promise<any[]> {
  return (await fetch(`${doubleUrl()}/__calls/${encodeURIComponent(model)}`)).json();
}
