import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterAll, describe, expect, inject, it } from "vitest";
import { makeResponse, type BusMessage, type BusRequest } from "../../core/bus";
import { consumerPortsFromEnv, makeBusConsumers } from "../../workers/queue";
import type { CaseStep } from "../doubles/scripted-model-server";
import { api, createAgent, uniqueName } from "../api/client";
import { seededRandom } from "../doubles/seeded-random";

/**
 * `npm run test:faults`: seeded runs with the faults real deployments meet — model errors (429,
 * 5xx, timeouts, malformed tool-call JSON), tool timeouts, instance evictions at random points,
 * queue consumer throws and duplicate deliveries — against real Durable Objects, SQLite and Queues.
 * Every run must end (completed, or failed with a clear reason; none hung), and afterwards every
 * message, memory, tool call and delegated question exists exactly as often as it should.
 * FAULT_SEED replays a seed; FAULT_RUNS sets how many runs (1,000 by default; CI runs the default).
 */

const seed = Number(inject("faultSeed") || 20261123);
const runs = Number(inject("faultRuns") || 1000);
/** Cases run on this many asker/peer pairs at once; each pair runs its cases one after another. */
const lanes = 10;

const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;
const toolCallsOf = async (key: string): Promise<{ headers: Record<string, string> }[]> =>
  (await fetch(`${doubleUrl()}/__tool-calls/${key}`)).json();
const stubOf = (agent: string) => env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent}`));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const terminal = new Set(["completed", "failed", "cancelled"]);

type Work = "plain" | "tool" | "slow-tool" | "malformed-args" | "memory" | "ask";
type ModelFault = "none" | "429" | "500" | "503" | "timeout" | "permanent-400" | "429-exhausted";
interface Case {
  n: number;
  work: Work;
  modelFault: ModelFault;
  /** Which agent is evicted, and how long after the message was sent. */
  eviction?: { who: "asker" | "peer"; afterMs: number };
  /** Deliver the delegated question and its answer again afterwards, through the real consumer. */
  duplicate: boolean;
  /** The consumer's first attempt at each re-delivery throws (the queue retries it). */
  consumerThrows: boolean;
  /** How long the model takes per call, so evictions land while calls are in flight. */
  modelDelayMs: number;
}

function caseOf(n: number, rng: ReturnType<typeof seededRandom>): Case {
  const work = rng.pick<Work>(["plain", "plain", "tool", "slow-tool", "malformed-args", "memory", "ask", "ask"]);
  const modelFault = rng.chance(0.4)
    ? rng.pick<ModelFault>(["429", "500", "503", "timeout", "permanent-400", "429-exhausted"])
    : "none";
  const eviction = rng.chance(0.25)
    ? { who: work === "ask" && rng.chance(0.5) ? ("peer" as const) : ("asker" as const), afterMs: rng.between(0, 120) }
    : undefined;
  return {
    n,
    work,
    modelFault,
    ...(eviction ? { eviction } : {}),
    duplicate: work === "ask" && rng.chance(0.5),
    consumerThrows: rng.chance(0.5),
    modelDelayMs: rng.between(0, 60),
  };
}

interface Lane {
  asker: string;
  askerModel: string;
  peer: string;
  peerModel: string;
  toolKey: string;
}

async function makeLane(): Promise<Lane> {
  const askerModel = uniqueName("faults-model");
  const peerModel = uniqueName("faults-peer-model");
  const toolKey = uniqueName("faults-tool");
  const host = new URL(doubleUrl()).hostname;
  const tool = (name: string, query: string, timeoutMs?: number) => ({
    name,
    description: `Fault suite tool ${name}`,
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    endpoint: `${doubleUrl()}/__tool/${toolKey}?${query}`,
    headers: {},
    requiresApproval: false,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  const limits = { modelTimeoutMs: 400 };
  const peer = await createAgent({
    name: uniqueName("faults-peer"),
    model: { provider: "openai", name: peerModel },
    runtime: { tools: [], allowHosts: [host], limits },
  });
  const asker = await createAgent({
    name: uniqueName("faults-asker"),
    model: { provider: "openai", name: askerModel },
    runtime: {
      tools: ["clock.now"],
      allowHosts: [host],
      limits,
      httpTools: [tool("lookup.record", "ms=5"), tool("slow.export", "ms=600", 200)],
    },
  });
  const connected = await api(`/api/agents/${asker.name}/connections`, {
    method: "PUT",
    json: { connections: [peer.name] },
  });
  if (!connected.ok) throw new Error(`connect: ${connected.status} ${await connected.text()}`);
  return { asker: asker.name, askerModel, peer: peer.name, peerModel, toolKey };
}

/**
 * The model's replies for a case, by position in its run (see the double's `/__case`): a call made
 * again after an eviction gets the same reply, and a fault fails the first calls at a position.
 */
function stepsOf(c: Case, lane: Lane): { asker: CaseStep[]; peer: CaseStep[] } {
  const reply = `Reply ${c.n}.`;
  const fault: CaseStep["failFirst"] | undefined =
    c.modelFault === "429"
      ? { times: 1, status: 429, error: "rate limited" }
      : c.modelFault === "500"
        ? { times: 1, status: 500, error: "upstream broke" }
        : c.modelFault === "503"
          ? { times: 2, status: 503, error: "overloaded" }
          : c.modelFault === "timeout"
            ? { times: 1, delayMs: 900 }
            : // A bad request is final; four 429s outlast the three retries: either way the run fails, saying why.
              c.modelFault === "permanent-400"
              ? { times: 99, status: 400, error: `bad request in case ${c.n}` }
              : c.modelFault === "429-exhausted"
                ? { times: 99, status: 429, error: "rate limited" }
                : undefined;
  const work: Record<Work, CaseStep[]> = {
    plain: [{ content: reply }],
    tool: [{ toolCalls: [{ name: "lookup.record", arguments: { text: `record ${c.n}` } }] }, { content: reply }],
    "slow-tool": [{ toolCalls: [{ name: "slow.export", arguments: { text: `export ${c.n}` } }] }, { content: reply }],
    "malformed-args": [{ toolCalls: [{ name: "lookup.record", arguments: '{"text": "record' }] }, { content: reply }],
    memory: [
      {
        toolCalls: [
          { name: "memory.store", arguments: { text: `Fault case ${c.n} keeps the blue folder in drawer ${c.n}.` } },
        ],
      },
      { content: reply },
    ],
    ask: [
      { toolCalls: [{ name: `ask_${lane.peer}`, arguments: { question: `Question #c${c.n}?` } }] },
      { content: reply },
    ],
  };
  const asker = work[c.work].map((step, i) => ({
    ...step,
    delayMs: c.modelDelayMs,
    ...(i === 0 && fault ? { failFirst: fault } : {}),
  }));
  return { asker, peer: c.work === "ask" ? [{ content: `Peer answer ${c.n}.`, delayMs: c.modelDelayMs }] : [] };
}

const scriptCase = (model: string, tag: string, steps: CaseStep[]) =>
  fetch(`${doubleUrl()}/__case/${model}/${tag}`, { method: "POST", body: JSON.stringify({ steps }) });

async function evict(agent: string): Promise<void> {
  await runInDurableObject(stubOf(agent), (_instance, state) => state.abort("fault suite: evicted")).catch(
    () => undefined,
  );
}

const sql = <T extends Record<string, SqlStorageValue>>(agent: string, query: string, ...bindings: SqlStorageValue[]) =>
  runInDurableObject(stubOf(agent), (_instance, state) => state.storage.sql.exec<T>(query, ...bindings).toArray());

/** The run of a case's session, once it exists. */
async function runOf(
  agent: string,
  session: string,
): Promise<{ id: string; status: string; error: string | null } | undefined> {
  return (
    await sql<{ id: string; status: string; error: string | null }>(
      agent,
      "SELECT id, status, error FROM runs WHERE session_id = ? ORDER BY started_at LIMIT 1",
      session,
    )
  )[0];
}

/**
 * Waits for the case's run to end. With no request arriving, only alarms wake an evicted agent:
 * they are fired here as Cloudflare would fire them (the asker's and the peer's).
 */
async function settle(
  lane: Lane,
  session: string,
): Promise<{ id: string; status: string; error: string | null } | "hung"> {
  for (let i = 0; i < 240; i++) {
    const run = await runOf(lane.asker, session);
    if (run && terminal.has(run.status)) return run;
    if (i % 4 === 3) {
      await runDurableObjectAlarm(stubOf(lane.asker));
      await runDurableObjectAlarm(stubOf(lane.peer));
    }
    await sleep(50);
  }
  return "hung";
}

/** Re-delivers a message through the real queue consumer; its first attempt may throw (then it is retried, as the queue does). */
async function redeliver(message: BusMessage, throwFirst: boolean): Promise<void> {
  const ports = consumerPortsFromEnv(env);
  let thrown = false;
  const consumers = makeBusConsumers({
    ...ports,
    deliver: (m) => {
      if (throwFirst && !thrown) {
        thrown = true;
        throw new Error("fault suite: the consumer's delivery threw");
      }
      return ports.deliver(m);
    },
  });
  for (let attempt = 1; attempt <= 3; attempt++) {
    const batch = createMessageBatch("pantheon-bus", [
      { id: `${message.id}:${attempt}`, timestamp: Date.now(), attempts: attempt, body: message },
    ]);
    await consumers.bus(batch);
    const result = await getQueueResult(batch, createExecutionContext());
    if (result.retryMessages.length === 0) return;
  }
  throw new Error(`re-delivery of ${message.id} was still retried after 3 attempts`);
}

interface Outcome {
  status: "completed" | "failed" | "hung";
  /** The eviction cut a run off mid-way (its trace says it was carried on). */
  resumed?: boolean;
  reason?: string;
  problems: string[];
}

async function runCase(c: Case, lane: Lane): Promise<Outcome> {
  const problems: string[] = [];
  const steps = stepsOf(c, lane);
  await scriptCase(lane.askerModel, `c${c.n}`, steps.asker);
  if (steps.peer.length) await scriptCase(lane.peerModel, `c${c.n}`, steps.peer);
  const session = (
    (await (
      await api(`/api/agents/${lane.asker}/sessions`, { method: "POST", json: { title: `case ${c.n}` } })
    ).json()) as { id: string }
  ).id;
  const content = `Case #c${c.n}: please handle this.`;
  const toolCallsBefore = (await toolCallsOf(lane.toolKey)).length;
  const peerRunsBefore = c.work === "ask" ? (await sql(lane.peer, "SELECT id FROM runs")).length : 0;

  const sent = api(`/api/agents/${lane.asker}/messages`, { method: "POST", json: { content, session } })
    .then((r) => r.status)
    .catch(() => 0);
  if (c.eviction) {
    await sleep(c.eviction.afterMs);
    await evict(c.eviction.who === "peer" ? lane.peer : lane.asker);
  }
  const status = await sent;
  if (status >= 400 && status < 500) problems.push(`the message was refused with ${status}`);

  const run = await settle(lane, session);
  if (run === "hung") return { status: "hung", problems: [...problems, `case ${JSON.stringify(c)} did not end`] };
  if (run.status === "cancelled") problems.push("the run was cancelled, which nothing asked for");
  if (run.status === "failed" && (!run.error || /undefined|\[object Object\]/.test(run.error)))
    problems.push(`failed without a clear reason: ${run.error}`);

  // History: the person's message once; a completed run's reply once, a failed run's never.
  const history = await sql<{ role: string; content: string }>(
    lane.asker,
    "SELECT role, content FROM messages WHERE session_id = ? ORDER BY seq",
    session,
  );
  const users = history.filter((m) => m.role === "user" && m.content === content).length;
  if (users !== 1) problems.push(`the message is in history ${users} times`);
  const replies = history.filter((m) => m.role === "assistant" && m.content === `Reply ${c.n}.`).length;
  if (run.status === "completed" && replies !== 1) problems.push(`the reply is in history ${replies} times`);
  if (run.status === "failed" && replies !== 0) problems.push("a failed run left a reply");

  // Memory: a stored fact exists at most once, and exactly once when the store was reported done.
  if (c.work === "memory") {
    const stored = (await sql(lane.asker, "SELECT id FROM memories WHERE text LIKE ?", `Fault case ${c.n} keeps%`))
      .length;
    const reported = (
      await sql<{ data: string }>(
        lane.asker,
        "SELECT data FROM trace WHERE run_id = ? AND name = 'tool_result'",
        run.id,
      )
    ).some((t) => /"ok":true/.test(t.data));
    if (stored > 1) problems.push(`the memory was stored ${stored} times`);
    if (reported && stored !== 1) problems.push("a memory reported stored is missing");
  }
  // Tools: one call per model proposal, unless an eviction interrupted it (then the same key again, for idempotent tools only).
  if (c.work === "tool" || c.work === "slow-tool") {
    const calls = (await toolCallsOf(lane.toolKey)).slice(toolCallsBefore);
    if (calls.length > 1) problems.push(`the tool (not idempotent) was called ${calls.length} times`);
  }
  // Delegation: the peer ran the question once, however often it was delivered.
  if (c.work === "ask") {
    const inbox = await sql<{ request: string }>(
      lane.peer,
      "SELECT request FROM bus_inbox WHERE type = 'request' AND request LIKE ?",
      `%Question #c${c.n}?%`,
    );
    if (inbox.length > 1) problems.push(`the peer applied the question ${inbox.length} times`);
    if (c.duplicate && inbox[0]) {
      const request = JSON.parse(inbox[0].request) as BusRequest;
      await redeliver(request, c.consumerThrows);
      const answered = await sql<{ reply: string | null }>(
        lane.asker,
        "SELECT reply FROM bus_outbox WHERE id = ?",
        request.id,
      );
      const answer = answered[0]?.reply ? (JSON.parse(answered[0].reply) as { answer?: string }).answer : undefined;
      if (answer !== undefined) await redeliver(makeResponse(request, answer, Date.now()), c.consumerThrows);
    }
    const peerRuns = (await sql(lane.peer, "SELECT id FROM runs")).length - peerRunsBefore;
    if (peerRuns > 1) problems.push(`the peer started ${peerRuns} runs for one question`);
    const asked = (await sql(lane.asker, "SELECT id FROM bus_outbox WHERE run_id = ?", run.id)).length;
    if (asked > 1) problems.push(`the question was sent ${asked} times`);
    const again = await sql<{ role: string; content: string }>(
      lane.asker,
      "SELECT role, content FROM messages WHERE session_id = ? ORDER BY seq",
      session,
    );
    if (again.length !== history.length) problems.push("a duplicate delivery changed the asker's history");
  }
  const resumed =
    (await sql(lane.asker, "SELECT id FROM trace WHERE run_id = ? AND name = 'resumed'", run.id)).length > 0;
  return {
    status: run.status === "completed" ? "completed" : "failed",
    resumed,
    ...(run.status !== "completed" ? { reason: run.error ?? "" } : {}),
    problems,
  };
}

/** A failure reason with its case numbers and ids taken out, to count reasons by kind. */
const reasonKind = (reason: string) =>
  reason
    .replace(/\d+/g, "N")
    .replace(/'[^']*'/g, "'…'")
    .slice(0, 120);

describe("fault injection", () => {
  const tally = { completed: 0, failed: 0, hung: 0, resumed: 0 };
  const reasons = new Map<string, number>();
  const problems: string[] = [];
  afterAll(() => {
    console.log(
      `\nfault injection: seed ${seed}, ${runs} runs: ${tally.completed} completed, ${tally.failed} failed with a clear reason, ${tally.hung} hung; ${problems.length} lost or duplicated; ${tally.resumed} runs carried on after an eviction cut them off`,
    );
    for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1]))
      console.log(`  failed ×${count}: ${reason}`);
    for (const problem of problems.slice(0, 20)) console.log(`  problem: ${problem}`);
  });

  it(`${runs} seeded runs end (none hung), and nothing is lost or duplicated`, { timeout: 60 * 60_000 }, async () => {
    const rng = seededRandom(seed);
    const cases = Array.from({ length: runs }, (_, n) => caseOf(n, rng));
    const count = (p: (c: Case) => boolean) => cases.filter(p).length;
    console.log(
      `fault injection: ${count((c) => c.modelFault !== "none")} model faults (${["429", "500", "503", "timeout", "permanent-400", "429-exhausted"].map((f) => `${f} ×${count((c) => c.modelFault === f)}`).join(", ")}), ` +
        `${count((c) => c.work === "slow-tool")} tool timeouts, ${count((c) => c.work === "malformed-args")} malformed tool-call JSON, ${count((c) => Boolean(c.eviction))} evictions, ` +
        `${count((c) => c.duplicate)} duplicate deliveries (${count((c) => c.duplicate && c.consumerThrows)} of them after a consumer throw)`,
    );
    const pool = await Promise.all(Array.from({ length: Math.min(lanes, runs) }, makeLane));
    let next = 0;
    await Promise.all(
      pool.map(async (lane) => {
        for (let c = cases[next++]; c; c = cases[next++]) {
          const outcome = await runCase(c, lane);
          tally[outcome.status] += 1;
          if (outcome.resumed) tally.resumed += 1;
          if (outcome.reason !== undefined)
            reasons.set(reasonKind(outcome.reason), (reasons.get(reasonKind(outcome.reason)) ?? 0) + 1);
          problems.push(
            ...outcome.problems.map(
              (p) =>
                `case ${c!.n} (${c!.work}, model ${c!.modelFault}${c!.eviction ? `, ${c!.eviction.who} evicted after ${c!.eviction.afterMs} ms` : ""}): ${p}`,
            ),
          );
        }
      }),
    );
    expect(tally.hung, "runs that never ended").toBe(0);
    expect(problems, "lost or duplicated").toEqual([]);
    // The faults are survivable by design: most runs complete, and those that fail are the ones whose fault is final.
    expect(tally.completed + tally.failed).toBe(runs);
    expect(tally.completed).toBeGreaterThan(runs / 2);
  });
});
