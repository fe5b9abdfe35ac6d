import { describe, expect, it } from "vitest";
import { api } from "../api/client";
import { askingAgent, mcpOrigin, questionsOf } from "./asking-kit";
import { evict, wakeByAlarmUntilDone } from "../runs/eviction-kit";

/** Calls `tool` in a turn left running, and waits until its server's question is listed. */
async function asked(agent: string, tool: string) {
  const turn = api(`/api/agents/${agent}/messages`, { method: "POST", json: { content: `/tool ${tool} {}` } }).catch(
    () => null,
  );
  for (let i = 0; i < 200; i++) {
    const [question] = await questionsOf(agent);
    if (question) return { turn, question };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the server's question never reached the agent's list");
}

const answer = (agent: string, id: string, json: unknown) =>
  api(`/api/agents/${agent}/mcp/questions/${id}`, { method: "POST", json });

const callsOf = async (tenant: string) =>
  (await (await fetch(`${mcpOrigin}/__calls?tenant=${tenant}`)).json()) as { tool: string; arguments: any }[];

async function runDetail(agent: string, runId: string) {
  return (await (await api(`/api/agents/${agent}/runs/${runId}`)).json()) as any;
}

describe("a server's question outlives the agent's eviction", () => {
  it("a read-only call is made again after the restart: the answer given meanwhile reaches the server and the run completes", async () => {
    const { agent, tenant } = await askingAgent();
    const { turn, question } = await asked(agent, "travel.quote");
    expect(question.runId).toEqual(expect.any(String));
    await evict(agent);
    await turn;

    // Still in the inbox after the restart, the same question.
    expect(await questionsOf(agent)).toEqual([expect.objectContaining({ id: question.id, server: "travel" })]);
    expect((await answer(agent, question.id, { action: "accept", content: { seats: 3 } })).status).toBe(204);

    expect(await wakeByAlarmUntilDone(agent, question.runId)).toBe("completed");
    expect(await callsOf(tenant)).toEqual([
      { tool: "quote", arguments: { answer: { action: "accept", content: { seats: 3 } } } },
    ]);
    const detail = await runDetail(agent, question.runId);
    expect(JSON.stringify(detail)).toContain("quoted 3 seats");
    expect(await questionsOf(agent)).toEqual([]);
  });

  it("a call that cannot be repeated ends as interrupted; its question leaves the inbox and a late answer is refused (409), the server not told", async () => {
    const { agent, tenant } = await askingAgent();
    const { turn, question } = await asked(agent, "travel.book");
    await evict(agent);
    await turn;
    // Listed after the restart while the run still waits on the call.
    expect((await questionsOf(agent)).map((q) => q.id)).toEqual([question.id]);

    const status = await wakeByAlarmUntilDone(agent, question.runId);
    expect(["completed", "failed"]).toContain(status);
    const detail = await runDetail(agent, question.runId);
    expect(JSON.stringify(detail)).toContain("interrupted: the agent restarted while this call was in flight");
    expect(await questionsOf(agent)).toEqual([]);
    const late = await answer(agent, question.id, { action: "accept", content: { seats: 2 } });
    expect(late.status).toBe(409);
    expect(((await late.json()) as any).error.message).toBe(
      `the tool call that asked MCP question '${question.id}' ended when the agent restarted, before it was answered: ` +
        "the server 'travel' was not sent the answer (the run says what became of the call)",
    );
    expect(await callsOf(tenant)).toEqual([]);
  });
});
