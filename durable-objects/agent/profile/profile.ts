import { goalsOf, type AgentProfile } from "../../../core/agents";
import type { ActorScript } from "../../../core/dsl";
import { unknownAgent } from "../../../core/errors";
import type { SettingsPort } from "../chat";
import { cronBehaviorsOf, cronIndexName, type CronEntry } from "../../../core/schedule";
import { registryStub } from "../../stubs";

/**
 * The agent's profile as the registry last pushed it (kept in its settings), and its entry in the
 * cron index that follows from it. `name` is the object's name, `<project>.<agent>`.
 */
export function makeProfileHolder(deps: { settings: SettingsPort; env: Env; name: () => string }) {
  /** The profile as last configured, parsed once per configuration (set and forget reset it). */
  let snapshot: AgentProfile | null | undefined;

  const stored = (): AgentProfile | null => {
    if (snapshot === undefined) {
      const kept = deps.settings.get<AgentProfile>("profile") ?? null;
      // A profile pushed before the registry's migration 0008 may hold its goals as the string "[]".
      snapshot = kept && { ...kept, goals: goalsOf(kept.goals) };
    }
    return snapshot;
  };
  const cronsOf = (profile: AgentProfile | null | undefined): CronEntry[] =>
    cronBehaviorsOf(profile?.script as ActorScript | null | undefined);

  /**
   * Keeps this agent's entry in the cron index the Cron Trigger reads, from the profile it holds:
   * every way an agent gets a script (PUT …/script, create, spawn) configures it, so none is missed.
   */
  const indexCron = async (before: CronEntry[], after: CronEntry[]): Promise<void> => {
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    const name = deps.name();
    const dot = name.indexOf(".");
    await registryStub(deps.env, cronIndexName).indexCronBehaviors(name.slice(0, dot), name.slice(dot + 1), after);
  };

  return {
    stored,
    /** The agent's profile; an object the registry never configured answers as an unknown agent. */
    get(): AgentProfile {
      const profile = stored();
      if (!profile) {
        // Said in the project's terms, as every door says it: the agent and its project, not the object's name.
        const name = deps.name();
        const dot = name.indexOf(".");
        throw unknownAgent(name.slice(dot + 1), name.slice(0, dot));
      }
      return profile;
    },
    /** Stores the profile the registry pushed and brings the cron index in line with its script. */
    async set(profile: AgentProfile): Promise<void> {
      const before = cronsOf(stored());
      deps.settings.set("profile", JSON.parse(JSON.stringify(profile)) as AgentProfile);
      snapshot = undefined;
      await indexCron(before, cronsOf(profile));
    },
    /**
     * The agent is being forgotten: call before its settings are deleted (it reads the crons it had),
     * then settle the returned cleanup of its cron index entry.
     */
    forget(): () => Promise<void> {
      const crons = cronsOf(stored());
      return () => {
        snapshot = undefined;
        return indexCron(crons, []);
      };
    },
  };
}

export type ProfileHolder = ReturnType<typeof makeProfileHolder>;
