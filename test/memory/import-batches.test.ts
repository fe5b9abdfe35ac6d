import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentObjectName } from "../../durable-objects/stubs";
import { api, createAgent } from "../api/client";

/**
 * Durable Object SQLite binds at most 100 variables a statement. An import of 21 memories or more
 * used to store them without vectors ("too many SQL variables": 64 rows of 5 values in one INSERT)
 * and `reembed` failed the same way every time. Any size now gets every vector, and is found.
 */
// Every tenth memory names 20 entities: its 20 graph edges, 6 values each, are more than one INSERT may bind too.
const lines = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      kind: "fact",
      text: `The locker code of room kestrel${i} is ${4000 + i}`,
      ...(i % 10 === 0 ? { entities: Array.from({ length: 20 }, (_, j) => `t${j}`) } : {}),
    }),
  ).join("\n");

type Status = { total: number; missingVectors: number; vectors: { vectors: number }[] };

async function importInto(agent: string, n: number) {
  const res = await api(`/api/agents/${agent}/memories/import`, {
    method: "POST",
    body: lines(n),
    headers: { "content-type": "application/x-ndjson" },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { imported: number; errors: unknown[]; warnings: string[] };
}

const status = async (agent: string) => (await (await api(`/api/agents/${agent}/memories/status`)).json()) as Status;
const search = async (agent: string, q: string) =>
  (
    (await (await api(`/api/agents/${agent}/memories?q=${encodeURIComponent(q)}&limit=5`)).json()) as {
      memories: { text: string }[];
    }
  ).memories;

describe("memory import and re-embed, in batches of any size", () => {
  for (const n of [0, 1, 21, 250]) {
    it(`imports ${n} memories with a vector each, and search finds them`, async () => {
      const agent = await createAgent();
      const report = await importInto(agent.name, n);
      expect(report).toEqual({ imported: n, errors: [], warnings: [] });
      const after = await status(agent.name);
      expect(after.total).toBe(n);
      expect(after.missingVectors).toBe(0);
      expect(after.vectors.reduce((sum, s) => sum + s.vectors, 0)).toBe(n);
      if (n > 0) {
        const last = n - 1;
        expect((await search(agent.name, `locker code room kestrel${last}`))[0]?.text).toBe(
          `The locker code of room kestrel${last} is ${4000 + last}`,
        );
      }
    });
  }

  it("re-embeds 250 memories that have no vectors (as a failed import left them): every one gets its vector, and a second run has nothing to do", async () => {
    const agent = await createAgent();
    await importInto(agent.name, 250);
    // The state the old bug left behind: the rows, without the record of their vectors.
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName("default", agent.name)));
    await runInDurableObject(stub, (_instance, state) => void state.storage.sql.exec("DELETE FROM memory_vectors"));
    expect((await status(agent.name)).missingVectors).toBe(250);

    const res = await api(`/api/agents/${agent.name}/memories/reembed`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ embedded: 250, dropped: 0, warnings: [] });
    expect((await status(agent.name)).missingVectors).toBe(0);
    expect((await search(agent.name, "locker code room kestrel137"))[0]?.text).toBe(
      "The locker code of room kestrel137 is 4137",
    );
    const again = await api(`/api/agents/${agent.name}/memories/reembed`, { method: "POST" });
    expect(await again.json()).toMatchObject({ embedded: 0, warnings: [] });
  });
});
