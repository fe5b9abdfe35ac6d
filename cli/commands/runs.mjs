// `pantheon runs`, `trace`, `approvals`, `approve`, `reject`
import { param, UsageError } from "../client.mjs";
import { duration, oneLine, printJson, table, time } from "../format.mjs";

/**
 * @param {string[]} args
 * @param {string} command
 * @returns {[string, string]}
 */
function agentAndRun(args, command) {
  const [agent, runId] = args;
  if (!agent || !runId) throw new UsageError(`name the agent and the run: pantheon ${command} <agent> <runId>`, command);
  return [agent, runId];
}

/**
 * The part of a step's data worth a glance: the tool and its arguments, a gate's verdict, an error.
 * @param {{ name: string, data: any }} step
 */
function stepDetail(step) {
  const d = step.data ?? {};
  const tool = d.tool ?? d.name ?? (d.output ? `the ${d.output}` : "");
  if (step.name === "tool_call" || step.name === "approval_requested") return oneLine(`${tool} ${d.arguments ? JSON.stringify(d.arguments) : ""}`, 70);
  if (step.name === "tool_result" || step.name === "agent_response") return oneLine(`${tool} ${d.ok === false ? `failed: ${d.error ?? ""}` : d.output ?? ""}`, 70);
  if (step.name === "model_result") return oneLine(d.toolCalls?.length ? `calls ${d.toolCalls.join(", ")}` : d.content ?? "", 70);
  if (step.name === "gate_decisions") {
    const denied = (d.decisions ?? []).find((/** @type {any} */ r) => r.decision?.allow === false);
    return oneLine(`${tool}: ${denied ? `${denied.gate} said no${denied.decision.reason ? `: ${denied.decision.reason}` : ""}` : "allowed"}`, 70);
  }
  if (step.name === "approval") return oneLine(`${tool} ${d.approved ? "approved" : "rejected"} by ${d.by}${d.reason ? `: ${d.reason}` : ""}`, 70);
  if (d.error || d.reason) return oneLine(d.error ?? d.reason, 70);
  if (d.status) return String(d.status);
  return "";
}

export const runs = {
  name: "runs",
  summary: "list an agent's runs, newest first",
  usage: ["pantheon runs <agent> [--limit <n>]"],
  options: { limit: { type: "string", help: "how many (1-200, default 50)" } },
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, values, json }) {
    const [agent] = args;
    if (!agent) throw new UsageError("name the agent", "runs");
    const body = await send(api.api.agents[":name"].runs.$get({ ...param({ name: agent }), query: values.limit ? { limit: values.limit } : {} }));
    if (json) return printJson(body);
    if (!body.runs.length) return console.log("No runs yet.");
    console.log(
      table(
        ["RUN", "STATUS", "TRIGGER", "STARTED", "TOOK", "STEPS", "TOKENS", "ERROR"],
        body.runs.map((r) => [r.id, r.status, r.trigger, time(r.startedAt), r.finishedAt ? duration(r.finishedAt - r.startedAt) : "-", r.steps, r.tokens, r.error ? oneLine(r.error, 50) : ""]),
      ),
    );
  },
};

export const trace = {
  name: "trace",
  summary: "show every step of a run with its kind, name and duration",
  usage: ["pantheon trace <agent> <runId>"],
  options: {},
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, json }) {
    const [agent, runId] = agentAndRun(args, "trace");
    const body = await send(api.api.agents[":name"].runs[":id"].$get(param({ name: agent, id: runId })));
    if (json) return printJson(body);
    const { run } = body;
    console.log(`Run ${run.id}: ${run.status} (${run.trigger}), started ${time(run.startedAt)}, ${run.steps} steps, ${run.tokens} tokens${run.error ? `, error: ${run.error}` : ""}`);
    console.log(table(["#", "KIND", "NAME", "DURATION", "DETAIL"], body.trace.map((s) => [s.seq, s.kind, s.name, duration(s.durationMs), stepDetail(s)])));
    for (const p of run.pending ?? []) {
      console.log(`Waiting for approval: ${p.tool} ${oneLine(p.arguments, 80)} (call ${p.callId}): pantheon approve ${agent} ${run.id} --call ${p.callId}`);
    }
  },
};

export const approvals = {
  name: "approvals",
  summary: "list every tool call of the project waiting for a person",
  usage: ["pantheon approvals"],
  options: {},
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, json }) {
    const body = await send(api.api.approvals.$get());
    if (json) return printJson(body);
    if (!body.approvals.length) return console.log("Nothing is waiting for approval.");
    console.log(table(["AGENT", "RUN", "CALL", "TOOL", "ARGUMENTS", "REQUESTED"], body.approvals.map((a) => [a.agent, a.runId, a.callId, a.tool, oneLine(a.arguments, 50), time(a.requestedAt)])));
    console.log("\nDecide with: pantheon approve <agent> <run> [--call <id>]   or   pantheon reject <agent> <run> [--reason <text>]");
  },
};

/** @param {"approve" | "reject"} kind */
function decision(kind) {
  return {
    name: kind,
    summary: kind === "approve" ? "let a paused tool call run" : "refuse a paused tool call (the model is told why)",
    usage: [`pantheon ${kind} <agent> <runId> [--call <id>] [--reason <text>]`],
    options: {
      call: { type: "string", help: "which pending call, when the run waits on more than one" },
      reason: { type: "string", help: "why: recorded in the trace and shown to the model" },
    },
    /** @param {import("../client.mjs").CommandContext} context */
    async run({ client: { api, send }, args, values, json }) {
      const [agent, runId] = agentAndRun(args, kind);
      const input = { decision: kind, ...(values.call ? { callId: values.call } : {}), ...(values.reason ? { reason: values.reason } : {}) };
      const run = await send(api.api.agents[":name"].runs[":id"].approval.$post({ ...param({ name: agent, id: runId }), json: input }));
      if (json) return printJson(run);
      console.log(`${kind === "approve" ? "Approved" : "Rejected"}: run ${run.id} is now ${run.status}. See: pantheon trace ${agent} ${run.id}`);
    },
  };
}

export const approve = decision("approve");
export const reject = decision("reject");
