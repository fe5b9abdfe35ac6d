import type { AgentProfile } from "../../../core/agents";
import { unknownPrincipal, type RunPrincipal } from "../../../core/auth";
import type { Result } from "../../../core/errors";
import { builtinSpec } from "../../../core/tools";
import { supervisePolicySchema, unsupervised, type SupervisePolicy } from "../../../core/behaviors";
import type { ToolSource } from "../runs/tools";

export const spawnToolName = "agent.spawn";

/** `agent.spawn` runs as a delegation (runtime "agent"): the run waits for the child's report like for any answer. */
export const isSpawnCall = (target: string) => target === spawnToolName;

const spawnSpec = builtinSpec(spawnToolName);

/**
 * The `agent.spawn` tool, for agents whose script says `(spawn :allowed true :quota n)`.
 * @example
 * buildAgentTools(profile, { ..., extra: [spawnToolSource(profile)] });
 */
export function spawnToolSource(profile: AgentProfile): ToolSource {
  const spawn = (profile.script as { spawn?: { allowed?: boolean } } | null)?.spawn;
  return spawn?.allowed ? { specs: [spawnSpec], implementations: {} } : { specs: [], implementations: {} };
}

export interface SpawnDeps {
  profile(): AgentProfile;
  project(): string;
  /**
   * The registry compiles the child's script, checks the spawn rules (connections inside the parent's,
   * quotas), creates the child with its parent set and connects it to the parent.
   */
  spawnChild(
    parent: string,
    scriptSource: string,
    configuredBy: RunPrincipal,
  ): Promise<Result<{ child: AgentProfile; parent: AgentProfile }>>;
  /** Pushes a profile to its agent's Durable Object (the child's, and this agent's own). */
  configure(profile: AgentProfile): Promise<void>;
}

export function makeSpawner(deps: SpawnDeps) {
  return {
    /** `arguments` is the tool call's JSON (`{ script, goal }`); answers the child's name and the goal to ask it. */
    /** `principal`: whom the spawning run acts for, recorded as the child's configurer (its behaviors act with no more). */
    async spawn(
      argumentsJson: string,
      principal?: RunPrincipal,
    ): Promise<{ ok: true; child: string; goal: string; supervise: SupervisePolicy } | { ok: false; error: string }> {
      const profile = deps.profile();
      // Checked here for a quick answer; the registry checks it again with the quota.
      const allowed = (profile.script as { spawn?: { allowed: boolean; quota: number } } | null)?.spawn;
      if (!allowed?.allowed)
        return {
          ok: false,
          error: `agent '${profile.name}' may not spawn agents (its script has no (spawn :allowed true))`,
        };
      let args: { script?: unknown; goal?: unknown; supervise?: unknown };
      try {
        args = JSON.parse(argumentsJson) as typeof args;
      } catch {
        return { ok: false, error: "the arguments are not JSON" };
      }
      if (typeof args.script !== "string" || typeof args.goal !== "string" || !args.goal.trim())
        return { ok: false, error: "give a script (DSL text) and a goal" };
      const policy =
        args.supervise === undefined
          ? { success: true as const, data: unsupervised }
          : supervisePolicySchema.safeParse(args.supervise);
      if (!policy.success)
        return {
          ok: false,
          error: `supervise: ${policy.error.issues.map((i) => `${i.path.join(".") || "(policy)"}: ${i.message}`).join("; ")}`,
        };
      // The registry compiles the script and enforces the rules: a refusal names the connection or quota.
      const created = await deps.spawnChild(profile.name, args.script, principal ?? unknownPrincipal);
      if (!created.ok) return { ok: false, error: created.message };
      await deps.configure(created.value.child);
      await deps.configure(created.value.parent);
      return { ok: true, child: created.value.child.name, goal: args.goal, supervise: policy.data };
    },
  };
}
