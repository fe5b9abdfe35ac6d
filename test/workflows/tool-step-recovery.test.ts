// A workflow's tool step runs its tool once across an eviction at any point: its run id (and so the
// call's Idempotency-Key, `<run>:manual-call`) is written with the step's start, and recovery adopts
// that run instead of starting another. Each eviction point is simulated; the last test is the
// positive control: a running step with no run written (as before) runs its tool twice, and the
// same assertions see it.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { uniqueName } from "../api/client";
import { project } from "../bus/harness";

const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;
const stubOf = (p: string, agent: string) => env.AGENT_DO.get(env.AGENT_DO.idFromName(`${p}.${agent}`));
const evict = async (p: string) => {
  await expect(runInDurableObject(stubOf(p, "main"), (_i, state) => state.abort("test: evicted"))).rejects.toThrow();
};
const sql = <T extends Record<string, SqlStorageValue>>(p: string, query: string, ...bindings: SqlStorageValue[]) =>
  runInDurableObject(stubOf(p, "main"), (_i, state) => state.storage.sql.exec<T>(query, ...bindings).toArray());

/** What the tool's endpoint received: one entry per call, with the Idempotency-Key it carried. */
async function callsOf(toolKey: string): Promise<{ text: string; key: string }[]> {
  const calls = (await (await fetch(`${doubleUrl()}/__tool-calls/${toolKey}`)).json()) as {
    body: { text: string };
    headers: Record<string, string>;
  }[];
  return calls.map((c) => ({ text: c.body.text, key: c.headers["idempotency-key"]! }));
}
/** The keys a service that deduplicates by Idempotency-Key would apply: each once. */
const appliedKeys = (calls: { key: string }[]) => [...new Set(calls.map((c) => c.key))];

const workflow = {
  name: "apply",
  steps: [{ id: "apply", kind: "tool", tool: "ledger.apply", args: { text: "{{input}}" } }],
};

/** An agent whose one HTTP tool applies a change once per key (idempotent unless told), held open until released. */
async function setUp({ idempotent = true } = {}) {
  const p = project();
  const toolKey = uniqueName("wf-tool");
  const hold = uniqueName("wf-hold");
  await p.agent("main", {
    runtime: {
      tools: [],
      allowHosts: [new URL(doubleUrl()).hostname],
      httpTools: [
        {
          name: "ledger.apply",
          description: "Applies one change to the ledger (once per Idempotency-Key).",
          parameters: {
            type: "object",
            properties: { text: { type: "string" } },
            required: ["text"],
            additionalProperties: false,
          },
          endpoint: `${doubleUrl()}/__tool/${toolKey}?hold=${hold}`,
          idempotent,
        },
      ],
    },
  });
  const view = (id: string) => p.json(`/api/agents/main/workflows/${id}`);
  /** With no request to the agent: its alarm is fired as Cloudflare would, until the workflow ends. */
  const finished = (id: string) =>
    p.until(async () => {
      await runDurableObjectAlarm(stubOf(p.name, "main"));
      const v = await view(id);
      return v.status !== "running" ? v : null;
    }, `workflow ${id} to finish`);
  const manualRuns = async () =>
    (await sql<{ id: string }>(p.name, "SELECT id FROM runs WHERE trigger = 'manual'")).map((r) => r.id);
  return { p, toolKey, hold, view, finished, manualRuns };
}

/** A workflow row as it stood when the object died: `progress` of its one tool step, principal of a real start. */
async function plantRow(p: string, id: string, input: string, step: Record<string, unknown>): Promise<void> {
  const [real] = await sql<{ principal: string }>(p, "SELECT principal FROM workflow_runs LIMIT 1");
  const progress = { status: "running", steps: { apply: step } };
  await sql(
    p,
    `INSERT INTO workflow_runs (id, name, definition, input, progress, status, principal, created_at, updated_at)
     VALUES (?, 'apply', ?, ?, ?, 'running', ?, ?, ?)`,
    id,
    JSON.stringify({ ...workflow, steps: workflow.steps.map((s) => ({ ...s, after: [] })) }),
    input,
    JSON.stringify(progress),
    real!.principal,
    Date.now(),
    Date.now(),
  );
}

describe("a workflow's tool step across an eviction", () => {
  it("evicted during the call: the step adopts its run, whose recovery sends the same key again; one run, one key applied", async () => {
    const { p, toolKey, hold, view, finished, manualRuns } = await setUp();
    const started = await p.json("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow, input: "credit 5", id: "wf-during" },
    });
    const runId = started.steps[0].ref as string;
    expect(runId).toBeTruthy();
    // The call is open at the endpoint when the object dies.
    await p.until(async () => (await callsOf(toolKey)).length === 1, "the tool call to arrive");
    expect((await view("wf-during")).steps[0]).toMatchObject({ state: "running", ref: runId });
    await evict(p.name);
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    const done = await finished("wf-during");
    expect(done.status).toBe("completed");
    expect(JSON.parse(done.output).echo).toEqual({ text: "credit 5" });
    expect(done.steps[0].ref).toBe(runId);
    const calls = await callsOf(toolKey);
    expect(calls.length).toBe(2);
    expect(appliedKeys(calls)).toEqual([`${runId}:manual-call`]);
    expect(await manualRuns()).toEqual([runId]);
    const run = await p.json(`/api/agents/main/runs/${runId}`);
    expect(run.trace.some((t: { name: string }) => t.name === "resumed")).toBe(true);
  });

  it("evicted during the call of a tool not safe to repeat: the step fails as interrupted, and the call is not sent again", async () => {
    const { p, toolKey, hold, finished, manualRuns } = await setUp({ idempotent: false });
    const started = await p.json("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow, input: "debit 3", id: "wf-unsafe" },
    });
    await p.until(async () => (await callsOf(toolKey)).length === 1, "the tool call to arrive");
    await evict(p.name);
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    const done = await finished("wf-unsafe");
    expect(done.status).toBe("failed");
    expect(done.steps[0].error).toContain("interrupted: the agent restarted while this call was in flight");
    expect(await callsOf(toolKey)).toHaveLength(1);
    expect(await manualRuns()).toEqual([started.steps[0].ref]);
  });

  it("evicted after the call, before the step's result was written: the finished run's answer is taken, nothing is sent again", async () => {
    const { p, toolKey, hold, finished, manualRuns } = await setUp();
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    const first = await p.json("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow, input: "credit 7", id: "wf-seed" },
    });
    const seeded = await finished(first.id);
    const runId = seeded.steps[0].ref as string;
    // The same run finished, but the object died before the step recorded it.
    await plantRow(p.name, "wf-after", "credit 7", { state: "running", startedAt: Date.now(), ref: runId });
    await evict(p.name);
    const done = await finished("wf-after");
    expect(done.status).toBe("completed");
    expect(JSON.parse(done.output).echo).toEqual({ text: "credit 7" });
    expect(done.steps[0].ref).toBe(runId);
    expect(appliedKeys(await callsOf(toolKey))).toEqual([`${runId}:manual-call`]);
    expect((await callsOf(toolKey)).length).toBe(1);
    expect(await manualRuns()).toEqual([runId]);
  });

  it("evicted between the step's record and its run's: the run is started under the recorded id, so its key is the one written before", async () => {
    const { p, toolKey, hold, finished, manualRuns } = await setUp();
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    await finished(
      (await p.json("/api/agents/main/workflows", { method: "POST", json: { workflow, input: "seed" } })).id,
    );
    const before = await manualRuns();
    const runId = crypto.randomUUID();
    await plantRow(p.name, "wf-between", "credit 9", { state: "running", startedAt: Date.now(), ref: runId });
    await evict(p.name);
    const done = await finished("wf-between");
    expect(done.status).toBe("completed");
    expect(done.steps[0].ref).toBe(runId);
    const calls = (await callsOf(toolKey)).filter((c) => c.text === "credit 9");
    expect(calls).toEqual([{ text: "credit 9", key: `${runId}:manual-call` }]);
    expect(await manualRuns()).toEqual([...before, runId]);
  });

  it("evicted before the step's start was written: the step starts once, under a run id written before its call", async () => {
    const { p, toolKey, hold, finished } = await setUp();
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    await finished(
      (await p.json("/api/agents/main/workflows", { method: "POST", json: { workflow, input: "seed" } })).id,
    );
    await plantRow(p.name, "wf-before", "credit 11", { state: "pending" });
    await evict(p.name);
    const done = await finished("wf-before");
    expect(done.status).toBe("completed");
    const calls = (await callsOf(toolKey)).filter((c) => c.text === "credit 11");
    expect(calls).toEqual([{ text: "credit 11", key: `${done.steps[0].ref}:manual-call` }]);
  });

  it("positive control: a running step whose run was not written with it (as before) runs its tool again under a second key, and the checks above see two", async () => {
    const { p, toolKey, hold, finished, manualRuns } = await setUp();
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    const seeded = await finished(
      (await p.json("/api/agents/main/workflows", { method: "POST", json: { workflow, input: "credit 13" } })).id,
    );
    const runId = seeded.steps[0].ref as string;
    // The run finished (its key applied), but the step kept no link to it.
    await plantRow(p.name, "wf-unlinked", "credit 13", { state: "running", startedAt: Date.now() });
    await evict(p.name);
    const done = await finished("wf-unlinked");
    expect(done.status).toBe("completed");
    expect(done.steps[0].ref).not.toBe(runId);
    expect(appliedKeys(await callsOf(toolKey))).toHaveLength(2);
    expect(await manualRuns()).toHaveLength(2);
  });
});
