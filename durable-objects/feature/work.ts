import type { AgentProfile } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { featureCreateSchema, resolveFeature, type FeatureCreate, type Principal } from "../../core/work";
import { lowerPrincipal, type RunPrincipal } from "../../core/auth";
import { agentStub, call, featureStub, registryStub } from "../stubs";
import type { RunLookup, TaskRef } from "./task-store";

/** The tools a task's worker always has: its workspace, its task, the plan it works from. */
export const workerTools = [
  "fs.list",
  "fs.read",
  "fs.write",
  "fs.delete",
  "task.commit",
  "task.block",
  "plan.read",
  "status",
];

/**
 * Work across objects: the registry's feature index, each feature's own object, and the worker
 * agents. Used by the API (a person) and by agents' work tools (an agent), with the same rules:
 * the feature object checks who asks.
 */
export function makeWork(env: Env, project: string) {
  const registry = () => registryStub(env, project);

  const lookup: RunLookup = async (worker, runIds) => call((await agentStub(env, project, worker)).workRuns(runIds));

  async function names(): Promise<string[]> {
    return (await registry().featureIndex()).map((f) => f.name);
  }

  /** The feature a call acts on: named, else the caller's own (a worker's), else the only one, else an error listing them. */
  async function resolve(explicit: string | undefined, own?: string | null): Promise<string> {
    return resolveFeature({ explicit, own, all: await names() });
  }

  async function create(input: FeatureCreate) {
    const parsed = featureCreateSchema.parse(input);
    await call(registry().getAgent(parsed.orchestrator));
    let made = await featureStub(env, project, parsed.name).create(parsed, project);
    // An object the index does not list is what a create cut off before its end left (an import evicted mid-clone): it starts again.
    if (!made.ok && made.code === "conflict" && !(await names()).includes(parsed.name)) {
      await featureStub(env, project, parsed.name).destroy();
      made = await featureStub(env, project, parsed.name).create(parsed, project);
    }
    const summary = await call(made);
    if (parsed.repository) {
      // Imported from a remote: the feature exists only if the import did.
      const imported = await (await featureStub(env, project, parsed.name).repo(project)).importFrom(parsed.repository);
      if (!imported.ok) {
        await featureStub(env, project, parsed.name).destroy();
        await call(imported);
      }
    }
    await registry().featureIndexPut(parsed.name, {
      title: parsed.title,
      orchestrator: parsed.orchestrator,
      createdAt: summary.createdAt,
    });
    return summary;
  }

  /** Makes sure the task's worker agent exists (from the feature's worker template) and is bound to this task only. */
  async function ensureWorker(
    feature: string,
    task: { number: number; key: string },
    begin: {
      worker: string;
      template: {
        systemPrompt: string;
        model?: AgentProfile["model"] | undefined;
        tools: string[];
        approvalRequired: string[];
      };
      orchestrator: string;
    },
  ): Promise<void> {
    const existing = await registry().getAgent(begin.worker);
    if (!existing.ok) {
      const orchestrator = await call(registry().getAgent(begin.orchestrator));
      const created = await call(
        registry().createAgent({
          name: begin.worker,
          description: `Worker for task '${task.key}' of feature '${feature}'`,
          systemPrompt: begin.template.systemPrompt,
          model: begin.template.model ?? orchestrator.model,
          runtime: {
            ...orchestrator.runtime,
            tools: [...new Set([...workerTools, ...begin.template.tools])],
            approvalRequired: [...new Set(["task.block", ...begin.template.approvalRequired])],
            // A worker has the tools its template names, not the orchestrator's own endpoints or remote agents.
            httpTools: [],
            a2aAgents: [],
          },
        }),
      );
      await (await agentStub(env, project, begin.worker)).configure(created);
    }
    // Bound to the task's key: a re-sync that renumbers the task keeps its worker working on it.
    await call((await agentStub(env, project, begin.worker)).bindWork({ feature, task: task.number, key: task.key }));
  }

  /**
   * Starts a task: the feature marks it in progress and generates its spec; the worker agent is made
   * (or found) and bound; its run starts with the spec as the prompt. Each step can be repeated: an
   * attempt's run is started once (keyed by feature, task and attempt), so a retried start after the
   * caller was cut off does not run the task twice.
   */
  async function startTask(feature: string, ref: TaskRef, by: Principal, options: { restart?: boolean } = {}) {
    const f = featureStub(env, project, feature);
    const begin = await call(f.beginTask(ref, by, options));
    await ensureWorker(feature, { number: begin.task, key: begin.key }, begin);
    const worker = await agentStub(env, project, begin.worker);
    const { runId, sessionId } = await call(
      worker.startWork({
        key: `${feature}/${begin.key}/${begin.attempt}`,
        content: begin.spec.prompt,
        title: `Task ${begin.task}: ${begin.spec.task.name}`,
      }),
    );
    await call(f.recordRun(begin.key, runId));
    await call(f.noteSession(begin.worker, sessionId));
    return { task: begin.task, key: begin.key, worker: begin.worker, runId, sessionId, spec: begin.spec };
  }

  /**
   * A person answers a blocked task: the feature records it, then every question call of its worker
   * goes on with it (the task's run, and a task.block someone invoked by hand), so none stays in the inbox.
   */
  async function answer(feature: string, task: TaskRef, text: string, by: Principal & { kind: "person" }) {
    const answered = await call(featureStub(env, project, feature).answerTask(task, text, by));
    // A task blocked by a commit conflict has no question waiting, and is simply in progress again.
    // A task blocked by a commit conflict may have no worker run yet (nothing to settle).
    const outcome = await (await agentStub(env, project, answered.worker)).settleQuestions({
      approved: true,
      by: by.id,
    });
    if (!outcome.ok && outcome.code !== "not_found") await call(outcome);
    const settled = outcome.ok ? outcome.value : [];
    return {
      task: answered.task,
      key: answered.key,
      worker: answered.worker,
      runId: answered.runId,
      question: answered.question,
      answer: text,
      resumed: settled.includes(answered.runId ?? "") || settled.length > 0,
    };
  }

  /** Discards a task; its worker's open questions leave the inbox (refused: the task moved on). */
  async function discard(feature: string, task: TaskRef, by: Principal) {
    const discarded = await call(featureStub(env, project, feature).discardTask(task, by));
    if (discarded.worker)
      await settleOf(discarded.worker, `task ${discarded.task} was discarded: it needs no answer`, actorName(by));
    return discarded;
  }

  const actorName = (by: Principal) => (by.kind === "person" ? by.id : by.name);
  async function settleOf(worker: string, reason: string, by: string): Promise<void> {
    const outcome = await (await agentStub(env, project, worker)).settleQuestions({ approved: false, by, reason });
    if (!outcome.ok && outcome.code !== "not_found") await call(outcome);
  }

  /** Run-all: the feature starts its tasks one after another from now on (its alarm), in the name of who asked. */
  async function runAll(feature: string, by: Principal) {
    return call(featureStub(env, project, feature).runAll(project, by));
  }

  /** The pause switch: the feature refuses writes, and its running workers' runs stop now (resume starts them again). */
  async function pause(feature: string, by: Principal) {
    const paused = await call(featureStub(env, project, feature).pause(by));
    const stopped: number[] = [];
    for (const t of paused.running) {
      const outcome = await (await agentStub(env, project, t.worker)).cancelRun(t.runId, actorName(by));
      if (outcome.ok) stopped.push(t.task);
    }
    return { paused: true, stopped };
  }

  /** Off again: each task whose run the pause stopped starts again (its uncommitted work is kept). */
  async function resume(feature: string, by: Principal) {
    const resumed = await call(featureStub(env, project, feature).resume(by));
    const restarted: number[] = [];
    for (const t of resumed.running) {
      const [info] = await lookup(t.worker, [t.runId]);
      if (info && ["cancelled", "failed", "completed"].includes(info.status)) {
        await startTask(feature, t.key, by, { restart: true });
        restarted.push(t.task);
      }
    }
    return { paused: false, restarted };
  }

  /**
   * A person answers the planner's question (clarify): the feature records it, and the orchestrator
   * gets it as its next message in the session it asked in, so it goes on planning.
   */
  async function answerQuestion(
    feature: string,
    id: string,
    text: string,
    by: Principal & { kind: "person" },
    principal: RunPrincipal,
  ) {
    const answered = await call(featureStub(env, project, feature).answerQuestion(id, text, by));
    if (!answered.first) return { ...answered, turn: null };
    const agent = await agentStub(env, project, answered.orchestrator);
    // The turn acts with the lower of the asking run's rights and the answerer's: an answer lends no rights.
    const asked = answered.question.runId ? await agent.getRun(answered.question.runId) : null;
    const askedBy = asked?.ok ? (asked.value.run as { principal?: RunPrincipal }).principal : undefined;
    const turnPrincipal = askedBy ? lowerPrincipal(askedBy, principal) : principal;
    const content = `${by.id} answered your question about feature '${feature}' ("${answered.question.question}"): ${text}`;
    const turn = agent.chat({
      content,
      ...(answered.question.session ? { session: answered.question.session } : {}),
      principal: turnPrincipal,
    });
    return { ...answered, turn };
  }

  async function report(feature: string) {
    return call(featureStub(env, project, feature).report(lookup));
  }

  /** The index keeps a feature's title for listings. */
  async function reindex(
    feature: string,
    summary: { title: string; orchestrator: string; createdAt: number },
  ): Promise<void> {
    await registry().featureIndexPut(feature, {
      title: summary.title,
      orchestrator: summary.orchestrator,
      createdAt: summary.createdAt,
    });
  }

  async function remove(feature: string): Promise<void> {
    if (!(await names()).includes(feature))
      throw new PantheonError("not_found", `feature '${feature}' does not exist`, { details: { feature } });
    // The feature's workers go with it: each was made for one of its tasks and holds nothing else.
    const tasks = await call(featureStub(env, project, feature).tasks());
    for (const worker of new Set(tasks.flatMap((t) => (t.worker ? [t.worker] : [])))) {
      const binding = await (await agentStub(env, project, worker)).workBinding();
      if (!binding.ok || binding.value?.feature !== feature) continue;
      await (await agentStub(env, project, worker)).forget();
      await registry().deleteAgent(worker);
    }
    await featureStub(env, project, feature).destroy();
    await registry().featureIndexPut(feature, null);
  }

  return {
    names,
    resolve,
    create,
    reindex,
    startTask,
    answer,
    discard,
    runAll,
    pause,
    resume,
    answerQuestion,
    report,
    remove,
    lookup,
    feature: (name: string) => featureStub(env, project, name),
    list: () => registry().featureIndex(),
  };
}

export type Work = ReturnType<typeof makeWork>;
