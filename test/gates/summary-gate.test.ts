import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";

const noFruit = { name: "no-fruit", kind: "deny-pattern", on: ["memory"], pattern: "pineapple" };

async function chat(name: string, content: string, session?: string) {
  const res = await api(`/api/agents/${name}/messages`, {
    method: "POST",
    json: { content, ...(session ? { session } : {}) },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; runId: string; sessionId: string };
}

/** A conversation whose first turn leaves a window of four messages, so the summary fold writes it. */
async function converse(name: string) {
  const first = await chat(name, "My favourite fruit is pineapple and my project is called Heliotrope.");
  const runIds = [first.runId];
  for (let i = 0; i < 4; i++) runIds.push((await chat(name, `Filler question number ${i}?`, first.sessionId)).runId);
  return runIds;
}

const summaries = async (name: string) =>
  ((await (await api(`/api/agents/${name}/memories?kind=summary&limit=50`)).json()) as { memories: { text: string }[] })
    .memories;
const everyMemory = async (name: string) =>
  JSON.stringify(await (await api(`/api/agents/${name}/memories?limit=200`)).json());

describe("the summary fold passes the output gates (sink summary-fold)", () => {
  it("positive control: without a gate, the folded summary holding the word is stored", async () => {
    const { name } = await createAgent({ runtime: { limits: { maxHistory: 4 } } });
    await converse(name);
    const stored = await summaries(name);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.text).toContain("pineapple");
  });

  it("a memory gate denying a word keeps a summary holding it out of storage, and the refusal is in the trace of the run that folded", async () => {
    const { name } = await createAgent({ runtime: { limits: { maxHistory: 4 }, gates: [noFruit] } });
    const runIds = await converse(name);
    expect(JSON.stringify(await summaries(name))).not.toContain("pineapple");
    expect(await everyMemory(name)).not.toContain("pineapple");
    const traces = await Promise.all(
      runIds.map(
        async (id) =>
          ((await (await api(`/api/agents/${name}/runs/${id}`)).json()) as { trace: { name: string; data: any }[] })
            .trace,
      ),
    );
    const refusals = traces.flat().filter((s) => s.name === "gate_decisions" && s.data.by === "summary-fold");
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]!.data).toMatchObject({
      output: "memory",
      by: "summary-fold",
      decisions: [
        { gate: "output-size" },
        { gate: "secret-leak" },
        {
          gate: "no-fruit",
          decision: { allow: false, reason: "gate 'no-fruit': the memory matches a denied pattern" },
        },
      ],
    });
    // The refusal never fails a turn: the conversation goes on.
    const later = await chat(name, "Let us talk about Heliotrope's release plan now.", undefined);
    expect(later.status).toBe("completed");
  });
});
