import { env, runInDurableObject } from "cloudflare:test";
import { agentObjectName } from "../../durable-objects/stubs";
import { api } from "../api/client";

export interface Preview {
  messages: { role: string; content: string }[];
  items: {
    id: string;
    source: string;
    kind: string;
    text: string;
    included: boolean;
    reason: { code: string; detail: string };
    tokens: number;
    scores: Record<string, number>;
  }[];
  tokens: { used: number; budget: number };
  summary: string | null;
  folded: number;
  warnings: string[];
  sources: string[];
}

export async function remember(agent: string, text: string, extra: Record<string, unknown> = {}) {
  const res = await api(`/api/agents/${agent}/memories`, { method: "POST", json: { text, ...extra } });
  if (res.status !== 201) throw new Error(`store memory failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; text: string; kind: string; superseded: string[]; warnings: string[] };
}

export async function preview(agent: string, q: string, extra = ""): Promise<Preview> {
  const res = await api(`/api/agents/${agent}/context?q=${encodeURIComponent(q)}${extra}`);
  if (res.status !== 200) throw new Error(`preview failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Preview;
}

export async function say(agent: string, content: string, session?: string) {
  const res = await api(`/api/agents/${agent}/messages`, {
    method: "POST",
    json: { content, ...(session ? { session } : {}) },
  });
  if (res.status !== 200) throw new Error(`chat failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { status: string; sessionId: string; reply: { content: string } | null };
}

export async function setScript(agent: string, script: Record<string, unknown>) {
  const res = await api(`/api/agents/${agent}/script`, {
    method: "PUT",
    json: { name: agent, description: "A test agent", talents: [], ...script },
  });
  if (res.status >= 300) throw new Error(`set script failed: ${res.status} ${await res.text()}`);
}

/** Reads the agent's own SQLite directly: the ids held by its local vector index and by the memories table. */
export async function storageOf(agent: string): Promise<{ vectors: string[]; memories: string[]; bookkept: string[] }> {
  const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName("default", agent)));
  return runInDurableObject(stub, (_instance, state) => {
    const ids = (query: string) =>
      state.storage.sql
        .exec<{ id: string }>(query)
        .toArray()
        .map((r) => r.id);
    const hasVectors =
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'pantheon_vec_items'").toArray().length > 0;
    return {
      vectors: hasVectors ? ids("SELECT id FROM pantheon_vec_items") : [],
      memories: ids("SELECT id FROM memories WHERE superseded_by IS NULL AND kind != 'summary'"),
      bookkept: ids("SELECT vector_id AS id FROM memory_vectors"),
    };
  });
}
