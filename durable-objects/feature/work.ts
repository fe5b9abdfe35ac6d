import type { AgentProfile } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { featureCreateSchema, resolveFeature, type FeatureCreate, type Principal } from "../../core/work";
import { agentStub, call, featureStub, registryStub } from "../stubs";
import type { RunLookup } from "./feature-do";

/** The tools a task's worker always has: its workspace, its task, the plan it works from. */
export const workerTools = ["fs.list", "fs.read", "fs.write", "fs.delete", "task.commit", "task.block", "plan.read", "status"];

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
    let made = await featureStub(env, project, parsed.name).create(parsed);
    // An object the index does not list is what a create cut off before its end left (an import evicted mid-clone): it starts again.
    if (!made.ok && made.code === "conflict" && !(await names()).includes(parsed.name)) {
      await featureStub(env, project, parsed.name).destroy();
      made = await featureStub(env, project, parsed.name).create(parsed);
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
    await registry().featureIndexPut(parsed.name, { title: parsed.title, orchestrator: parsed.orchestrator, createdAt: summary.createdAt });
    return summary;
  }

  /** Makes sure the task's worker agent exists (from the feature's worker template) and is bound to this task only. */
  async function ensureWorker(feature: string, task: number, begin: { worker: string; template: { systemPrompt: string; model?: AgentProfile["model"] | undefined; tools: string[]; approvalRequired: string[] }; orchestrator: string }): Promise<void> {
    const existing = await registry().getAgent(begin.worker);
    if (!existing.ok) {
      const orchestrator = await call(registry().getAgent(begin.orchestrator));
      const created = await call(
        registry().createAgent({
          name: begin.worker,
          description: `Worker for task ${task} of feature '${feature}'`,
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
    await call((await agentStub(env, project, begin.worker)).bindWork({ feature, task }));
  }

  /**
   * Starts a task: the feature marks it in progress and generates its spec; the worker agent is made
   * (or found) and bound; its run starts with the spec as the prompt. Each step can be repeated: an
   * attempt's run is started once (keyed by feature, task and attempt), so a retried start after the
   * caller was cut off does not run the task twice.
   */
  async function startTask(feature: string, task: number, by: Principal) {
    const f = featureStub(env, project, feature);
    const begin = await call(f.beginTask(task, by));
    await ensureWorker(feature, task, begin);
    const worker = await agentStub(env, project, begin.worker);
    const { runId, sessionId } = await call(worker.startWork({ key: `${feature}/${task}/${begin.attempt}`, content: begin.spec.prompt, title: `Task ${task}: ${begin.spec.task.name}` }));
    await call(f.recordRun(task, runId));
    await call(f.noteSession(begin.worker, sessionId));
    return { task, worker: begin.worker, runId, sessionId, spec: begin.spec };
  }

  /** A person answers a blocked task: the feature records it, then the worker's waiting run resumes where it stopped. */
  async function answer(feature: string, task: number, text: string, by: Principal & { kind: "person" }) {
    const answered = await call(featureStub(env, project, feature).answerTask(task, text, by));
    // A question from a waiting run resumes it; a task blocked by a commit conflict has none waiting,
    // and is simply in progress again for whoever resolves it.
    let resumed = false;
    if (answered.runId) {
      const outcome = await (await agentStub(env, project, answered.worker)).resumeWithAnswer(answered.runId, by.id);
      if (!outcome.ok && outcome.code !== "conflict") await call(outcome);
      resumed = outcome.ok;
    }
    return { task, worker: answered.worker, runId: answered.runId, question: answered.question, answer: text, resumed };
  }

  async function report(feature: string) {
    return call(featureStub(env, project, feature).report(lookup));
  }

  /** The index keeps a feature's title for listings. */
  async function reindex(feature: string, summary: { title: string; orchestrator: string; createdAt: number }): Promise<void> {
    await registry().featureIndexPut(feature, { title: summary.title, orchestrator: summary.orchestrator, createdAt: summary.createdAt });
  }

  async function remove(feature: string): Promise<void> {
    if (!(await names()).includes(feature)) throw new PantheonError("not_found", `feature '${feature}' does not exist`, { details: { feature } });
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

  return { names, resolve, create, reindex, startTask, answer, report, remove, lookup, feature: (name: string) => featureStub(env, project, name), list: () => registry().featureIndex() };
}

export type Work = ReturnType<typeof makeWork>;
