import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema } from "../../core/agents";
import {
  compareRuns,
  evalSuiteSchema,
  grade,
  summarize,
  type CaseResult,
  type EvalCase,
  type EvalSuite,
  type Observed,
} from "../../core/evals";
import { PantheonError, validationFailed, type FieldIssue } from "../../core/errors";
import { nameParam } from "./agents";
import { lazySchema } from "../../core/lazy-schema";
import { unknownProviderIn, type ModelProvider } from "../../core/models";
import { costOf } from "../../core/models/prices";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { runPrincipal } from "../auth";
import type { AppContext, AppEnv } from "../env";
import { scope } from "../scopes";
import { valid } from "../validation";

const runParam = lazySchema(() =>
  z.object({ name: agentNameSchema, id: z.uuid("an eval run's id as POST …/evals answered it") }),
);
const listQuery = lazySchema(() => z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }));
const runBody = lazySchema(() => z.strictObject({ suite: evalSuiteSchema }));

type Agent = Awaited<ReturnType<typeof agentStub>>;
/** A reply kept with its case: enough to read why it failed, not a second copy of the history. */
const keptReply = 2000;

interface TraceStep {
  name: string;
  data: unknown;
}

/** What a run did, from its trace: the tools it called, its tokens, and their price by the model that answered. */
function observedOf(trace: TraceStep[]): { toolCalls: Observed["toolCalls"]; tokens: number; costUsd: number | null } {
  const toolCalls: Observed["toolCalls"] = [];
  let tokens = 0;
  let costUsd: number | null = 0;
  for (const step of trace) {
    const data = (step.data ?? {}) as {
      tool?: string;
      arguments?: unknown;
      model?: string;
      usage?: { inputTokens: number; outputTokens: number };
    };
    if (step.name === "tool_call" && data.tool) toolCalls.push({ name: data.tool, arguments: data.arguments ?? {} });
    if (step.name === "model_result" && data.usage) {
      tokens += data.usage.inputTokens + data.usage.outputTokens;
      const cost = data.model ? costOf(data.model, data.usage) : null;
      costUsd = cost === null || costUsd === null ? null : costUsd + cost;
    }
  }
  return { toolCalls, tokens, costUsd };
}

/** One case: sent as a person's message in its session, then graded on the reply and the run's trace. */
async function runCase(
  c: AppContext,
  agent: Agent,
  suite: EvalSuite,
  item: EvalCase,
  session: string,
  providers: Record<string, ModelProvider>,
): Promise<CaseResult> {
  const input = item.input ?? JSON.stringify(item.data);
  const started = Date.now();
  const sent = await agent.chat({
    content: input,
    ...(item.data ? { input: item.data } : {}),
    session,
    principal: runPrincipal(c),
  });
  const latencyMs = Date.now() - started;
  if (!sent.ok)
    return {
      name: item.name,
      pass: false,
      reason: `the message was refused: ${sent.message}`,
      verdicts: [],
      reply: "",
      runId: null,
      tokens: 0,
      costUsd: 0,
      latencyMs,
    };
  const outcome = sent.value;
  const run = await agent.getRun(outcome.runId);
  const seen = observedOf(run.ok ? (run.value.trace as TraceStep[]) : []);
  const reply = outcome.reply?.content ?? "";
  const observed: Observed = { reply, toolCalls: seen.toolCalls, ...(outcome.error ? { error: outcome.error } : {}) };
  const base = {
    name: item.name,
    reply: reply.slice(0, keptReply),
    runId: outcome.runId,
    tokens: seen.tokens,
    costUsd: seen.costUsd,
    latencyMs,
  };
  if (outcome.status !== "completed") {
    const why =
      outcome.status === "waiting_approval"
        ? "the run waits for an approval (an eval answers none)"
        : `the run ${outcome.status}${outcome.error ? `: ${outcome.error}` : ""}`;
    return { ...base, pass: false, reason: why, verdicts: [] };
  }
  const judge = async (request: Parameters<Parameters<typeof grade>[3]>[0]) => {
    const judged = await agent.judge({ ...request, providers });
    return judged.ok ? judged.value : { error: judged.message };
  };
  const verdicts = [];
  for (const grader of item.expect) verdicts.push(await grade(grader, observed, input, judge, suite.judge?.model));
  const failed = verdicts.find((v) => !v.pass);
  return {
    ...base,
    pass: !failed,
    reason: failed ? failed.reason : verdicts.map((v) => v.reason).join("; "),
    verdicts,
  };
}

/**
 * The project's providers the suite's judges name, for the judge to call (the agent's profile holds
 * only those its own model names). A suite whose judge names a provider neither built in nor the
 * project's is refused before any case runs: the model layer would answer such a judge with the
 * offline stand-in, and every verdict would be the stand-in's, not the judge's the suite asked for.
 */
async function judgeProviders(c: AppContext, suite: EvalSuite): Promise<Record<string, ModelProvider>> {
  const named: { model: string; path: (string | number)[] }[] = [];
  if (suite.judge) named.push({ model: suite.judge.model, path: ["suite", "judge", "model"] });
  suite.cases.forEach((item, i) =>
    item.expect.forEach((grader, j) => {
      if ("judge" in grader && grader.judge.model)
        named.push({ model: grader.judge.model, path: ["suite", "cases", i, "expect", j, "judge", "model"] });
    }),
  );
  if (named.length === 0) return {};
  const project = c.get("project");
  const list = await registryStub(c.env, project).providerList();
  const names = list.map((p) => p.name);
  const issues: FieldIssue[] = [];
  const used: Record<string, ModelProvider> = {};
  for (const { model, path } of named) {
    const provider = model.slice(0, model.indexOf(":"));
    const unknown = unknownProviderIn({ provider, name: model.slice(provider.length + 1) }, names, project);
    if (unknown) issues.push({ path, message: `judge model '${model}': ${unknown.message}` });
    const own = list.find((p) => p.name === provider);
    if (own) used[provider] = own;
  }
  if (issues.length) throw validationFailed(issues, issues[0]!.message);
  return used;
}

/**
 * Evals: a suite of cases run against an agent over its own message path (each case in a session of
 * its own, or one it shares by name), graded, kept in the agent's history and compared with the
 * previous run of the same suite. The agent must exist; the cases act with the caller's rights.
 */
export const evalRoutes = new Hono<AppEnv>()
  .post("/:name/evals", scope("admin"), valid("param", nameParam), valid("json", runBody), async (c) => {
    const { name } = c.req.valid("param");
    const { suite } = c.req.valid("json");
    const agent = await agentStub(c.env, c.get("project"), name);
    const providers = await judgeProviders(c, suite);
    const startedAt = Date.now();
    const sessions = new Map<string, string>();
    const results: CaseResult[] = [];
    for (const item of suite.cases) {
      const key = item.session ?? `case:${item.name}`;
      let session = sessions.get(key);
      if (!session) {
        session = (await call(agent.createSession(`eval ${suite.name}: ${item.session ?? item.name}`.slice(0, 200))))
          .id;
        sessions.set(key, session);
      }
      results.push(await runCase(c, agent, suite, item, session, providers));
    }
    const run = summarize(
      {
        id: crypto.randomUUID(),
        suite: suite.name,
        agent: name,
        startedAt,
        finishedAt: Date.now(),
        threshold: suite.threshold,
      },
      results,
    );
    const previous = await call(agent.keepEvalRun(run));
    return c.json({ run, comparison: compareRuns(previous, run) }, 201);
  })
  .get("/:name/evals", scope("chat"), valid("param", nameParam), valid("query", listQuery), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ runs: await call(agent.evalRuns(c.req.valid("query").limit)) });
  })
  .get("/:name/evals/:id", scope("chat"), valid("param", runParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    const run = await call(agent.evalRun(id));
    if (!run) throw new PantheonError("not_found", `agent '${name}' has no eval run '${id}'`, { details: { run: id } });
    return c.json({ run });
  });
