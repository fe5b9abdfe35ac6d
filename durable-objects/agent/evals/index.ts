import type { AgentProfile } from "../../../core/agents";
import { judgePrompt, readJudgement, type EvalRun, type EvalRunSummary } from "../../../core/evals";
import { gatedKeep } from "../../../core/gates/sinks";
import { knownProviders, type ModelProvider } from "../../../core/models";
import { llmForProfile } from "../runs/models";
import type { OutputScreens } from "../runs/output-screens";

export interface EvalDeps {
  storage: DurableObjectState["storage"];
  env: Env;
  profile: () => AgentProfile;
  /**
   * The project's own settings a profile's model reads (its keys, its base URL), loaded once; and the
   * agent's output gates: a judge's reason is model output kept in the history, so it passes them.
   */
  screens: Pick<OutputScreens, "projectModel" | "screenFor">;
}

/** How many runs an agent keeps: the newest, enough history to compare and to chart. */
const keptRuns = 100;
const prefix = "evals/";
// Keys sort by start time, so a reverse list is newest first.
const keyOf = (run: Pick<EvalRun, "startedAt" | "id">) =>
  `${prefix}${String(run.startedAt).padStart(15, "0")}-${run.id}`;
const summaryOf = ({ results: _, ...summary }: EvalRun): EvalRunSummary => summary;

/**
 * An agent's eval history and its judge. Runs are kept in the object's key-value storage rather
 * than a table: each is written once, whole, and read whole, so it needs no schema or migration.
 */
export function makeEvals(deps: EvalDeps) {
  const { storage } = deps;

  async function runs(limit: number): Promise<EvalRun[]> {
    return [...(await storage.list<EvalRun>({ prefix, reverse: true, limit })).values()];
  }

  return {
    /** Keeps a finished run (the oldest beyond the last 100 go) and answers the previous run of its suite. */
    async keep(run: EvalRun): Promise<EvalRun | null> {
      const recent = await runs(keptRuns);
      const previous = recent.find((r) => r.suite === run.suite && r.agent === run.agent) ?? null;
      await storage.put(keyOf(run), run);
      const stale = recent.slice(keptRuns - 1).map(keyOf);
      if (stale.length) await storage.delete(stale);
      return previous;
    },
    /** Newest first, without their case results. */
    async list(limit: number): Promise<EvalRunSummary[]> {
      return (await runs(limit)).map(summaryOf);
    },
    async get(id: string): Promise<EvalRun | null> {
      return (await runs(keptRuns)).find((r) => r.id === id) ?? null;
    },
    /**
     * Asks `model` (provider:name; the agent's own model when none) to grade a reply against a rubric,
     * with the project's keys as the agent's own calls use them. `providers` are the project's
     * providers a judge names (the eval route reads them): the profile holds only those its own model
     * names. A provider neither built in nor among them is refused, never answered by the stand-in.
     */
    async judge(request: {
      rubric: string;
      model?: string;
      input: string;
      reply: string;
      providers?: Record<string, ModelProvider>;
    }): Promise<{ score: number; reason: string } | { error: string }> {
      const own = deps.profile();
      const at = request.model?.indexOf(":") ?? -1;
      const model =
        request.model && at > 0
          ? {
              ...own.model,
              provider: request.model.slice(0, at),
              name: request.model.slice(at + 1),
              fallback: undefined,
            }
          : own.model;
      const providers = { ...own.providers, ...request.providers };
      if (!(knownProviders as readonly string[]).includes(model.provider) && !Object.hasOwn(providers, model.provider))
        return {
          error: `'${model.provider}' is not a known provider: use one of ${knownProviders.join(", ")} or one of the project's providers`,
        };
      const profile = { ...own, model, providers };
      try {
        const llm = llmForProfile(profile, deps.env, {}, await deps.screens.projectModel(profile));
        const response = await llm.complete({
          model: model.name,
          messages: [{ role: "user", content: judgePrompt(request) }],
          temperature: 0,
          maxTokens: 300,
        });
        if (response.finishReason === "error")
          return { error: `${model.provider}:${model.name} failed: ${response.content}` };
        const judged = readJudgement(response.content);
        if ("error" in judged || gatedKeep("eval-judge", deps.screens.screenFor(own), { text: judged.reason }))
          return judged;
        return { score: judged.score, reason: "[withheld: the agent's output gates refused the judge's reason]" };
      } catch (error) {
        return {
          error: `${model.provider}:${model.name} failed: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    },
    /** With the agent (its deletion): no later agent of the same name sees these runs. */
    async wipe(): Promise<void> {
      const keys = [...(await storage.list({ prefix })).keys()];
      for (let i = 0; i < keys.length; i += 128) await storage.delete(keys.slice(i, i + 128));
    },
  };
}
