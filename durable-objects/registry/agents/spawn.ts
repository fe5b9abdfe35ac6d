import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { unknownPrincipal, type RunPrincipal } from "../../../core/auth";
import {
  checkSpawn,
  defaultAgentRuntime,
  profileFromScript,
  spawnGrantOf,
  type AgentProfile,
  type JsonValue,
} from "../../../core/agents";
import { compileScript, isScriptError, type ActorScript } from "../../../core/dsl";
import { PantheonError, type Result } from "../../../core/errors";
import { capsOf, tightest } from "../../../core/quotas";
import * as schema from "../schema";
import type { AgentProfiles } from "./profiles";

const fail = (error: PantheonError) => error.toFailure();

/** Children agents spawn from scripts, and their archiving: the graph rules kept by the registry. */
export function makeSpawning(deps: { db: DrizzleSqliteDODatabase<typeof schema>; profiles: AgentProfiles }) {
  const { db, profiles } = deps;

  /**
   * A child agent created by `parent` from a script (spawn). The registry, not the asking agent,
   * compiles the script and enforces the graph rules (core/agents/spawn.ts): the child connects only
   * to its parent and the parent's connections, every ancestor's quota bounds the agents spawned
   * below it, and the child's own quota is at most what is left. The child's runtime is derived from
   * its script alone (no hosts, HTTP tools or secrets of the operator's). The parent gets the child
   * as a connection.
   */
  function spawnChild(
    parent: string,
    scriptSource: string,
    configuredBy?: RunPrincipal,
  ): Result<{ child: AgentProfile; parent: AgentProfile }> {
    if (typeof scriptSource !== "string")
      return fail(new PantheonError("validation_failed", "the child's script must be DSL source text"));
    let script: ActorScript;
    try {
      script = compileScript(scriptSource).script;
    } catch (error) {
      if (!isScriptError(error)) throw error;
      return fail(
        new PantheonError("validation_failed", `the script does not compile: ${error.message}`, {
          details: { issues: error.issues },
        }),
      );
    }
    const agents = profiles.listAgents();
    const refused = checkSpawn(
      agents.map((a) => ({
        name: a.name,
        parent: a.parent,
        connections: a.connections,
        spawn: spawnGrantOf(a.script),
      })),
      parent,
      script,
    );
    if (refused) return fail(refused);
    const owner = agents.find((a) => a.name === parent)!;
    const derived = profileFromScript(script, defaultAgentRuntime);
    // Its daily caps are at most its parent's (core/quotas): spawning is no way around them.
    const created = profiles.createAgent({
      name: script.name,
      ...derived,
      runtime: {
        ...derived.runtime,
        limits: {
          ...derived.runtime.limits,
          ...tightest(capsOf(owner.runtime.limits), capsOf(derived.runtime.limits)),
        },
      },
      parent,
    });
    if (!created.ok) return created;
    profiles.updateAgent(script.name, {
      script: JSON.parse(JSON.stringify(script)) as JsonValue,
      scriptSource,
      configuredBy: configuredBy ?? unknownPrincipal,
    });
    const updated = profiles.updateAgent(parent, { connections: [...new Set([...owner.connections, script.name])] });
    if (!updated.ok) return updated;
    const child = profiles.getAgent(script.name);
    return child.ok ? { ok: true, value: { child: child.value, parent: updated.value } } : child;
  }

  /**
   * Archives a child its parent spawned (its supervisor's `onDone: archive`, or its time to live
   * ended): it leaves the graph — no agent connects to it, it connects to none — and stays readable
   * (its profile, history and runs). Only the parent that spawned it may.
   */
  function archiveChild(parent: string, child: string): Result<{ child: AgentProfile; parent: AgentProfile }> {
    const found = profiles.getAgent(child);
    if (!found.ok) return found;
    if (found.value.parent !== parent)
      return fail(
        new PantheonError("forbidden", `agent '${child}' was not spawned by '${parent}': only its parent archives it`, {
          details: { agent: child },
        }),
      );
    for (const other of profiles.dependentsOf(child))
      profiles.updateAgent(other.name, { connections: other.connections.filter((c) => c !== child) });
    db.update(schema.agents)
      .set({ connections: [], archivedAt: Date.now(), updatedAt: Date.now() })
      .where(eq(schema.agents.name, child))
      .run();
    const [archived, owner] = [profiles.getAgent(child), profiles.getAgent(parent)];
    if (!archived.ok) return archived;
    return owner.ok ? { ok: true, value: { child: archived.value, parent: owner.value } } : owner;
  }

  return { spawnChild, archiveChild };
}
