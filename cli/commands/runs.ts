// `pantheon runs list | show | approve | reject | cancel`, `pantheon approvals`
import { param, UsageError, type EventData } from "../client.ts";
import { text, type Action, type Command } from "../command.ts";
import { duration, oneLine, printJson, table, time } from "../format.ts";

function agentAndRun(args: string[], action: string): [string, string] {
  const [agent, runId] = args;
  if (!agent || !runId)
    throw new UsageError(`name the agent and the run: pantheon runs ${action} <agent> <runId>`, "runs");
  return [agent, runId];
}

/** The part of a step's data worth a glance: the tool and its arguments, a gate's verdict, an error. */
function stepDetail(step: { name: string; data: EventData }): string {
  const d = step.data ?? {};
  const tool = d.tool ?? d.name ?? (d.output ? `the ${d.output}` : "");
  if (step.name === "tool_call" || step.name === "approval_requested")
    return oneLine(`${tool} ${d.arguments ? JSON.stringify(d.arguments) : ""}`, 70);
  if (step.name === "tool_result" || step.name === "agent_response")
    return oneLine(`${tool} ${d.ok === false ? `failed: ${d.error ?? ""}` : (d.output ?? "")}`, 70);
  if (step.name === "model_result")
    return oneLine(d.toolCalls?.length ? `calls ${d.toolCalls.join(", ")}` : (d.content ?? ""), 70);
  if (step.name === "gate_decisions") {
    const denied = (d.decisions ?? []).find((r: EventData) => r.decision?.allow === false);
    return oneLine(
      `${tool}: ${denied ? `${denied.gate} said no${denied.decision.reason ? `: ${denied.decision.reason}` : ""}` : "allowed"}`,
      70,
    );
  }
  if (step.name === "approval")
    return oneLine(`${tool} ${d.approved ? "approved" : "rejected"} by ${d.by}${d.reason ? `: ${d.reason}` : ""}`, 70);
  if (d.error || d.reason) return oneLine(d.error ?? d.reason, 70);
  if (d.status) return String(d.status);
  return "";
}

function decision(kind: "approve" | "reject"): Action {
  return {
    name: kind,
    summary: kind === "approve" ? "let a paused tool call run" : "refuse a paused tool call (the model is told why)",
    usage: ["<agent> <runId> [--call <id>] [--reason <text>]"],
    options: {
      call: { type: "string", help: "which pending call, when the run waits on more than one" },
      reason: { type: "string", help: "why: recorded in the trace and shown to the model" },
    },
    async run({ client: { api, send }, args, values, json }) {
      const [agent, runId] = agentAndRun(args, kind);
      const callId = text(values, "call");
      const reason = text(values, "reason");
      const input = { decision: kind, ...(callId ? { callId } : {}), ...(reason ? { reason } : {}) };
      const run = await send(
        api.api.agents[":name"].runs[":id"].approval.$post({ ...param({ name: agent, id: runId }), json: input }),
      );
      if (json) return printJson(run);
      console.log(
        `${kind === "approve" ? "Approved" : "Rejected"}: run ${run.id} is now ${run.status}. See: pantheon runs show ${agent} ${run.id}`,
      );
    },
  };
}

export const runs: Command = {
  name: "runs",
  summary: "an agent's runs: list, show a trace, approve or reject a paused call, cancel",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "an agent's runs, newest first",
      usage: ["<agent> [--limit <n>]"],
      options: { limit: { type: "string", help: "how many (1-200, default 50)" } },
      async run({ client: { api, send }, args, values, json }) {
        const [agent] = args;
        if (!agent) throw new UsageError("name the agent: pantheon runs list <agent>", "runs");
        const limit = text(values, "limit");
        const body = await send(
          api.api.agents[":name"].runs.$get({ ...param({ name: agent }), query: limit ? { limit } : {} }),
        );
        if (json) return printJson(body);
        if (!body.runs.length) return console.log("No runs yet.");
        console.log(
          table(
            ["RUN", "STATUS", "TRIGGER", "STARTED", "TOOK", "STEPS", "TOKENS", "ERROR"],
            body.runs.map((r) => [
              r.id,
              r.status,
              r.trigger,
              time(r.startedAt),
              r.finishedAt ? duration(r.finishedAt - r.startedAt) : "-",
              r.steps,
              r.tokens,
              r.error ? oneLine(r.error, 50) : "",
            ]),
          ),
        );
      },
    },
    {
      name: "show",
      aliases: ["trace"],
      summary: "one run: every step with its kind, name and duration, and what it waits for",
      usage: ["<agent> <runId>"],
      async run({ client: { api, send }, args, json }) {
        const [agent, runId] = agentAndRun(args, "show");
        const body = await send(api.api.agents[":name"].runs[":id"].$get(param({ name: agent, id: runId })));
        if (json) return printJson(body);
        const { run } = body;
        console.log(
          `Run ${run.id}: ${run.status} (${run.trigger}), started ${time(run.startedAt)}, ${run.steps} steps, ${run.tokens} tokens${run.error ? `, error: ${run.error}` : ""}`,
        );
        console.log(
          table(
            ["#", "KIND", "NAME", "DURATION", "DETAIL"],
            body.trace.map((s) => [s.seq, s.kind, s.name, duration(s.durationMs), stepDetail(s)]),
          ),
        );
        for (const p of run.pending ?? []) {
          // A worker's question is answered, never approved (the approval route refuses it).
          if (p.tool === "task.block")
            console.log(
              `Waiting for an answer: ${oneLine(p.arguments, 80)}: pantheon tasks answer <feature> <task> <answer> (pantheon approvals names both)`,
            );
          else
            console.log(
              `Waiting for approval: ${p.tool} ${oneLine(p.arguments, 80)} (call ${p.callId}): pantheon runs approve ${agent} ${run.id} --call ${p.callId}`,
            );
        }
      },
    },
    decision("approve"),
    decision("reject"),
    {
      name: "cancel",
      summary: "cancel a run that has not finished (in-flight model and tool calls are aborted)",
      usage: ["<agent> <runId>"],
      async run({ client: { api, send }, args, json }) {
        const [agent, runId] = agentAndRun(args, "cancel");
        const run = await send(api.api.agents[":name"].runs[":id"].cancel.$post(param({ name: agent, id: runId })));
        if (json) return printJson(run);
        console.log(`Run ${run.id} is ${run.status}.`);
      },
    },
  ],
};

export const approvals: Command = {
  name: "approvals",
  summary: "every tool call of the project waiting for a person",
  actions: [
    {
      name: "",
      summary: "every tool call of the project waiting for a person",
      usage: [""],
      async run({ client: { api, send }, json }) {
        const body = await send(api.api.approvals.$get());
        if (json) return printJson(body);
        if (!body.approvals.length) return console.log("Nothing is waiting for approval.");
        // A question (a worker's task.block, a planner's plan.ask) is answered, never approved.
        const isQuestion = (a: (typeof body.approvals)[number]) => "kind" in a && a.kind === "question";
        const calls = body.approvals.filter((a) => !isQuestion(a));
        const questions = body.approvals.filter(isQuestion) as {
          agent: string;
          feature: string;
          task: number | null;
          question: string;
          answer: string;
          requestedAt: number;
        }[];
        if (calls.length) {
          console.log(
            table(
              ["AGENT", "RUN", "CALL", "TOOL", "ARGUMENTS", "REQUESTED"],
              calls.map((a) => [a.agent, a.runId, a.callId, a.tool, oneLine(a.arguments, 50), time(a.requestedAt)]),
            ),
          );
          console.log(
            "\nDecide with: pantheon runs approve <agent> <run> [--call <id>]   or   pantheon runs reject <agent> <run> [--reason <text>]",
          );
        }
        if (questions.length) {
          if (calls.length) console.log("");
          console.log(
            table(
              ["FEATURE", "TASK", "ASKED BY", "QUESTION", "REQUESTED"],
              questions.map((q) => [
                q.feature,
                q.task ?? "(plan)",
                q.agent,
                oneLine(q.question, 60),
                time(q.requestedAt),
              ]),
            ),
          );
          console.log("\nAnswer with:");
          for (const q of questions) console.log(`  ${q.answer}`);
        }
      },
    },
  ],
};
