// `pantheon eval run | list | show`: a suite of cases run against an agent, graded, kept and compared.
import { parse as parseYaml } from "yaml";
import { UsageError } from "../client.ts";
import { need, readText } from "../arguments.ts";
import { text, type Command } from "../command.ts";
import { duration, note, oneLine, printJson, table, time } from "../format.ts";
import type { CaseResult, Comparison, EvalRunSummary } from "../../core/evals/report.ts";
import { costLabel } from "../../core/models/cost-label.ts";

// The API's own shapes (core/evals): a run as kept, its summary in a list, its comparison.
type EvalRun = EvalRunSummary & { results?: CaseResult[] };

const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

function suiteOf(file: string): unknown {
  const source = readText(file, "eval");
  try {
    return /\.json$/i.test(file) ? JSON.parse(source) : parseYaml(source);
  } catch (error) {
    throw new UsageError(
      `'${file}' is not ${/\.json$/i.test(file) ? "JSON" : "YAML"}: ${(error as Error).message}`,
      "eval",
    );
  }
}

function printRun(run: EvalRun): void {
  if (run.results) {
    console.log(
      table(
        ["CASE", "VERDICT", "REASON", "TOKENS", "COST", "LATENCY"],
        run.results.map((r) => [
          oneLine(r.name, 32),
          r.pass ? "pass" : "FAIL",
          oneLine(r.reason, 70),
          r.tokens,
          costLabel(r.costUsd),
          duration(r.latencyMs),
        ]),
      ),
    );
    console.log("");
  }
  console.log(
    `${run.suite}: ${run.passed}/${run.cases} passed (${percent(run.passRate)}), threshold ${percent(run.threshold)}: ${run.pass ? "passed" : "FAILED"}`,
  );
  console.log(
    `tokens ${run.tokens}, cost ${costLabel(run.costUsd)}, latency p50 ${duration(run.latencyMs.p50)}, p95 ${duration(run.latencyMs.p95)}`,
  );
}

export const evals: Command = {
  name: "eval",
  summary: "run a suite of cases against an agent and grade the answers; list and show earlier runs",
  actions: [
    {
      name: "run",
      summary:
        "run a suite (YAML or JSON) against an agent: a table of verdicts, what changed since the last run, exit 1 below the threshold",
      usage: ["<suite.yaml> --agent <agent>"],
      options: { agent: { type: "string", help: "the agent to run the suite against" } },
      async run({ client: { request }, args, values, json }) {
        const file = need(args, 0, "suite file (YAML or JSON)", "eval");
        const agent = text(values, "agent");
        if (!agent) throw new UsageError("--agent names the agent to run the suite against", "eval");
        const suite = suiteOf(file);
        if (!json) note(`running ${file} against ${agent}…`);
        const body = await request<{ run: EvalRun; comparison: Comparison }>(
          "POST",
          `/api/agents/${encodeURIComponent(agent)}/evals`,
          { json: { suite } },
        );
        if (json) {
          printJson(body);
          return body.run.pass ? 0 : 1;
        }
        printRun(body.run);
        const { previous, passRateDelta, changes } = body.comparison;
        if (previous && passRateDelta !== null) {
          const moved = changes.filter((c) => c.change !== "new" || previous);
          const sign = passRateDelta > 0 ? "+" : "";
          console.log(
            `since ${time(previous.startedAt)}: pass rate ${sign}${percent(passRateDelta)}${moved.length ? "" : ", no case changed"}`,
          );
          for (const c of moved)
            console.log(`  ${c.change.padEnd(7)} ${c.name}${c.change === "broke" ? `: ${oneLine(c.reason, 80)}` : ""}`);
        }
        return body.run.pass ? 0 : 1;
      },
    },
    {
      name: "list",
      summary: "an agent's eval runs, newest first",
      usage: ["<agent> [--limit <n>]"],
      options: { limit: { type: "string", help: "how many (1-100, default 20)" } },
      async run({ client: { request }, args, values, json }) {
        const agent = need(args, 0, "agent", "eval");
        const body = await request<{ runs: EvalRun[] }>("GET", `/api/agents/${encodeURIComponent(agent)}/evals`, {
          query: { limit: text(values, "limit") },
        });
        if (json) return printJson(body);
        if (!body.runs.length)
          return console.log(
            `No eval runs for ${agent} yet. Run one with: pantheon eval run <suite.yaml> --agent ${agent}`,
          );
        console.log(
          table(
            ["ID", "SUITE", "STARTED", "PASSED", "RATE", "RESULT", "COST", "P50", "P95"],
            body.runs.map((r) => [
              r.id,
              oneLine(r.suite, 30),
              time(r.startedAt),
              `${r.passed}/${r.cases}`,
              percent(r.passRate),
              r.pass ? "passed" : "FAILED",
              costLabel(r.costUsd),
              duration(r.latencyMs.p50),
              duration(r.latencyMs.p95),
            ]),
          ),
        );
      },
    },
    {
      name: "show",
      summary: "one eval run with each case's verdict and reason",
      usage: ["<agent> <run-id>"],
      async run({ client: { request }, args, json }) {
        const agent = need(args, 0, "agent", "eval");
        const id = need(args, 1, "eval run id (pantheon eval list shows them)", "eval");
        const body = await request<{ run: EvalRun }>(
          "GET",
          `/api/agents/${encodeURIComponent(agent)}/evals/${encodeURIComponent(id)}`,
        );
        if (json) return printJson(body);
        printRun(body.run);
      },
    },
  ],
};
