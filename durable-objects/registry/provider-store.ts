import { PantheonError, type Result } from "../../core/errors";
import {
  maxProjectProviders,
  modelCascadeOf,
  namedProvidersOf,
  unknownProviderIn,
  type ModelProvider,
} from "../../core/models";
import type { AgentProfile } from "../../core/agents";
import { runtimeSecretNames } from "../../core/agents";

/** The registry's key-value storage (SQLite-backed): a record per provider, no schema needed. */
interface Kv {
  get<T>(key: string): T | undefined;
  put(key: string, value: unknown): void;
  delete(key: string): boolean;
  list<T>(options: { prefix: string }): Iterable<[string, T]>;
}

const fail = (error: PantheonError) => error.toFailure();
const keyOf = (name: string) => `provider/${name}`;

/**
 * A project's named model providers (core/models providers), kept in the registry's storage beside
 * its agents. An agent's profile carries the providers its model names, so a run reads them without
 * a round trip; changing one re-configures the agents that use it (workers/api/providers.ts).
 */
export function makeProviderStore(kv: Kv, project: () => string) {
  const get = (name: string) => kv.get<ModelProvider>(keyOf(name));
  const list = (): ModelProvider[] =>
    [...kv.list<ModelProvider>({ prefix: "provider/" })]
      .map(([, value]) => value)
      .sort((a, b) => a.name.localeCompare(b.name));
  const usersOf = (name: string, agents: AgentProfile[]) =>
    agents
      .filter((agent) => modelCascadeOf(agent.model).some((ref) => ref.provider === name))
      .map((agent) => agent.name);

  return {
    list,
    get,
    /** The providers a model setting names, for its agent's profile (none for a built-in model: nothing read). */
    of(model: AgentProfile["model"]): Record<string, ModelProvider> | undefined {
      const names = namedProvidersOf(model);
      if (names.length === 0) return undefined;
      const out: Record<string, ModelProvider> = {};
      for (const name of names) {
        const provider = get(name);
        if (provider) out[name] = provider;
      }
      return out;
    },
    /** Why `model` may not be stored here (a provider the project does not name), as a failure at `model.provider`. */
    refusal(model: AgentProfile["model"]): Result<never> | undefined {
      const unknown = unknownProviderIn(
        model,
        list().map((p) => p.name),
        project(),
      );
      return unknown
        ? fail(
            new PantheonError("validation_failed", unknown.message, {
              details: { issues: [{ path: ["model", ...unknown.path], message: unknown.message }] },
            }),
          )
        : undefined;
    },
    /** The same check over a project file's agents, as the file's issues (at each agent's `pantheon.model`). */
    fileIssues(agents: { name: string; model: AgentProfile["model"] }[]): { path: string; message: string }[] {
      const names = list().map((p) => p.name);
      return agents.flatMap((agent) => {
        const unknown = unknownProviderIn(agent.model, names, project());
        return unknown
          ? [{ path: `$.agents.${agent.name}.pantheon.model.${unknown.path.join(".")}`, message: unknown.message }]
          : [];
      });
    },
    /** Stores a provider; its key must be one of the project's own secrets, and no tool of an agent may name that secret. */
    put(
      provider: ModelProvider,
      ownSecrets: string[],
      agents: AgentProfile[],
    ): Result<{ provider: ModelProvider; users: string[] }> {
      if (!get(provider.name) && list().length >= maxProjectProviders)
        return fail(
          new PantheonError("conflict", `a project names at most ${maxProjectProviders} providers; delete one first`, {
            details: { limit: maxProjectProviders },
          }),
        );
      if (provider.keySecret && !ownSecrets.includes(provider.keySecret)) {
        const message = `no secret '${provider.keySecret}' in project '${project()}': set it first (pantheon secrets set ${provider.keySecret}, or PUT /api/projects/${project()}/secrets/${provider.keySecret})`;
        return fail(
          new PantheonError("validation_failed", message, { details: { issues: [{ path: ["keySecret"], message }] } }),
        );
      }
      const toolUser = provider.keySecret
        ? agents.find(
            (agent) =>
              runtimeSecretNames(agent.runtime).includes(provider.keySecret!) ||
              // A script tool the agent lists reads its declared secrets (core/sandbox).
              Object.values(agent.scriptTools ?? {}).some((tool) => tool.secrets.includes(provider.keySecret!)),
          )
        : undefined;
      if (toolUser) {
        const message = `the secret '${provider.keySecret}' is named by a tool of agent '${toolUser.name}': a model key never reaches a tool; use another secret for the provider's key`;
        return fail(
          new PantheonError("conflict", message, { details: { secret: provider.keySecret, agent: toolUser.name } }),
        );
      }
      kv.put(keyOf(provider.name), provider);
      return { ok: true, value: { provider, users: usersOf(provider.name, agents) } };
    },
    /** Deletes a provider no agent's model names (one that does would fail its runs). */
    remove(name: string, agents: AgentProfile[]): Result<true> {
      if (!get(name))
        return fail(
          new PantheonError("not_found", `no provider '${name}' in project '${project()}'`, {
            details: { provider: name },
          }),
        );
      const users = usersOf(name, agents);
      if (users.length)
        return fail(
          new PantheonError(
            "conflict",
            `provider '${name}' is the model of agent${users.length > 1 ? "s" : ""} ${users.join(", ")}: change their model first`,
            { details: { provider: name, agents: users } },
          ),
        );
      kv.delete(keyOf(name));
      return { ok: true, value: true };
    },
    /** The secrets that are providers' keys: no tool may name them. */
    keySecrets(): string[] {
      return [...new Set(list().flatMap((p) => (p.keySecret ? [p.keySecret] : [])))];
    },
  };
}

export type ProviderStore = ReturnType<typeof makeProviderStore>;
