import type { AgentProfile } from "../../core/agents";
import { PantheonError, type Result } from "../../core/errors";
import {
  maxProjectScriptTools,
  summaryOf,
  type CompiledScript,
  type ScriptToolSummary,
  type StoredScriptTool,
} from "../../core/sandbox";

/** The registry's key-value storage (SQLite-backed): a record per script tool, no schema needed. */
interface Kv {
  get<T>(key: string): T | undefined;
  put(key: string, value: unknown): void;
  delete(key: string): boolean;
  list<T>(options: { prefix: string }): Iterable<[string, T]>;
}

const prefix = "script-tool/";
const keyOf = (name: string) => `${prefix}${name}`;
const fail = (error: PantheonError) => error.toFailure();

/**
 * A project's script tools (core/sandbox), kept in the registry's storage beside its agents, each
 * with its version. An agent's profile carries the ones its tools list, so a run reads their code
 * without a round trip; saving one re-configures the agents that list it (workers/api/script-tools.ts).
 */
export function makeScriptToolStore(kv: Kv, project: () => string) {
  const get = (name: string) => kv.get<StoredScriptTool>(keyOf(name));
  const all = () => [...kv.list<StoredScriptTool>({ prefix })].map(([, tool]) => tool);
  const usersOf = (name: string, agents: AgentProfile[]) =>
    agents.filter((agent) => agent.runtime.tools.includes(name)).map((agent) => agent.name);

  return {
    get,
    list: (): ScriptToolSummary[] =>
      all()
        .map(summaryOf)
        .sort((a, b) => a.name.localeCompare(b.name)),
    /** The script tools an agent's tool list names, for its profile (none: nothing read but the names). */
    of(runtime: AgentProfile["runtime"]): Record<string, StoredScriptTool> | undefined {
      let out: Record<string, StoredScriptTool> | undefined;
      for (const name of runtime.tools) {
        const tool = get(name);
        if (tool) (out ??= {})[name] = tool;
      }
      return out;
    },
    /** Saves a compiled script under its declared name, one version up; answers the agents that list it. */
    put(
      compiled: CompiledScript & { source: string },
      agents: AgentProfile[],
      now: number,
    ): Result<{ tool: ScriptToolSummary; users: string[] }> {
      const { name } = compiled.declaration;
      const before = get(name);
      // The same source again (a project file imported twice) is the same version.
      if (before && before.source === compiled.source && before.codeId === compiled.codeId)
        return { ok: true, value: { tool: summaryOf(before), users: usersOf(name, agents) } };
      if (!before && all().length >= maxProjectScriptTools)
        return fail(
          new PantheonError(
            "conflict",
            `a project holds at most ${maxProjectScriptTools} script tools; delete one first`,
            {
              details: { limit: maxProjectScriptTools },
            },
          ),
        );
      const tool: StoredScriptTool = {
        ...compiled.declaration,
        version: (before?.version ?? 0) + 1,
        source: compiled.source,
        code: compiled.code,
        codeId: compiled.codeId,
        updatedAt: now,
      };
      kv.put(keyOf(name), tool);
      return { ok: true, value: { tool: summaryOf(tool), users: usersOf(name, agents) } };
    },
    /** Deletes a script tool no agent lists (one that does would lose a tool it was given). */
    remove(name: string, agents: AgentProfile[]): Result<true> {
      if (!get(name))
        return fail(
          new PantheonError("not_found", `no script tool '${name}' in project '${project()}'`, {
            details: { tool: name },
          }),
        );
      const users = usersOf(name, agents);
      if (users.length)
        return fail(
          new PantheonError(
            "conflict",
            `script tool '${name}' is listed by agent${users.length > 1 ? "s" : ""} ${users.join(", ")}: take it out of their tools first`,
            { details: { tool: name, agents: users } },
          ),
        );
      kv.delete(keyOf(name));
      return { ok: true, value: true };
    },
  };
}

export type ScriptToolStore = ReturnType<typeof makeScriptToolStore>;
