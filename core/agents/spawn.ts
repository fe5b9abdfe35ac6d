import type { ActorScript } from "../dsl";
import { PantheonError, type FieldIssue } from "../errors";

/** What the spawn rules need to know of an agent: where it sits in the graph and its spawn grant. */
export interface SpawnNode {
  name: string;
  parent: string | null;
  connections: readonly string[];
  /** The `(spawn :allowed … :quota …)` of its script, if any. */
  spawn?: { allowed: boolean; quota: number } | undefined;
}

/** The `spawn` grant a stored script carries (scripts are stored as plain JSON). */
export function spawnGrantOf(script: unknown): SpawnNode["spawn"] {
  const spawn = (script as { spawn?: { allowed?: unknown; quota?: unknown } } | null)?.spawn;
  if (spawn?.allowed !== true) return undefined;
  return { allowed: true, quota: typeof spawn.quota === "number" ? spawn.quota : 0 };
}

const quotaOf = (node: SpawnNode) => (node.spawn?.allowed ? node.spawn.quota : 0);

/**
 * The graph rules a spawned child must keep, so spawning never widens what a tree of agents can reach
 * or how big it grows:
 * - `parent` may spawn at all (its script says `(spawn :allowed true)`);
 * - every ancestor's quota bounds all agents spawned below it (children and theirs): the parent and
 *   each agent above it must have room for one more;
 * - the child connects only to its parent and the parent's connections (a subset of the graph the
 *   parent already reaches);
 * - the child's own quota is at most what is left after it: the smallest room any ancestor has.
 * Answers null when the child may be created, else a `forbidden` error naming the rule (with field
 * issues for connections and quota).
 * @example
 * checkSpawn(agents, "boss", { ...script, connections: ["payroll"] })
 * // PantheonError forbidden: "a spawned child may connect only to its parent 'boss' and the parent's connections: 'payroll' is not one (…)"
 */
export function checkSpawn(
  agents: readonly SpawnNode[],
  parent: string,
  child: Pick<ActorScript, "name" | "connections" | "spawn">,
): PantheonError | null {
  const byName = new Map(agents.map((a) => [a.name, a]));
  const owner = byName.get(parent);
  if (!owner) return new PantheonError("not_found", `agent '${parent}' does not exist`, { details: { agent: parent } });
  if (!owner.spawn?.allowed) {
    return new PantheonError(
      "forbidden",
      `agent '${parent}' may not spawn agents: its script has no (spawn :allowed true :quota n)`,
      { details: { agent: parent } },
    );
  }

  const chain = ancestry(byName, owner);
  const below = spawnedBelow(byName);
  let room = Infinity;
  let tightest = owner;
  for (const ancestor of chain) {
    const used = below.get(ancestor.name) ?? 0;
    const quota = quotaOf(ancestor);
    if (used >= quota) {
      const whose =
        ancestor === owner ? `agent '${parent}'` : `agent '${ancestor.name}' (which '${parent}' was spawned under)`;
      return new PantheonError(
        "forbidden",
        `spawn quota used up: ${whose} has ${used} of its ${quota} allowed spawned agents (children and their children count)`,
        {
          details: { agent: ancestor.name, quota, spawned: used },
        },
      );
    }
    if (quota - used < room) {
      room = quota - used;
      tightest = ancestor;
    }
  }

  const issues: FieldIssue[] = [];
  const messages: string[] = [];
  const reachable = new Set([parent, ...owner.connections]);
  const outside = child.connections.filter((c) => !reachable.has(c));
  child.connections.forEach((connection, i) => {
    if (!reachable.has(connection))
      issues.push({
        path: ["connections", i],
        message: `'${connection}' is neither '${parent}' nor one of its connections`,
      });
  });
  if (outside.length > 0) {
    const known = owner.connections.length
      ? `'${parent}', ${owner.connections.map((c) => `'${c}'`).join(", ")}`
      : `'${parent}'`;
    messages.push(
      `a spawned child may connect only to its parent and the parent's connections (${known}), not to ${outside.map((c) => `'${c}'`).join(", ")}`,
    );
  }
  const left = room - 1;
  const asked = child.spawn?.allowed ? child.spawn.quota : 0;
  if (asked > left) {
    const whose = tightest === owner ? `'${parent}'` : `'${tightest.name}' (above '${parent}')`;
    issues.push({ path: ["spawn", "quota"], message: `at most ${left}: what ${whose} has left after this child` });
    messages.push(
      `a spawned child's spawn quota is at most its parent's remaining quota: ${asked} asked, ${left} left to ${whose}`,
    );
  }
  return issues.length === 0
    ? null
    : new PantheonError("forbidden", messages.join("; "), { details: { agent: parent, issues } });
}

/** The parent and every agent above it, nearest first (a reused name cannot make it loop). */
function ancestry(byName: ReadonlyMap<string, SpawnNode>, from: SpawnNode): SpawnNode[] {
  const chain: SpawnNode[] = [];
  const seen = new Set<string>();
  for (
    let node: SpawnNode | undefined = from;
    node && !seen.has(node.name);
    node = node.parent ? byName.get(node.parent) : undefined
  ) {
    seen.add(node.name);
    chain.push(node);
  }
  return chain;
}

/** How many agents were spawned below each agent: children, their children, and so on. */
function spawnedBelow(byName: ReadonlyMap<string, SpawnNode>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const node of byName.values()) {
    if (!node.parent) continue;
    const parent = byName.get(node.parent);
    if (!parent) continue;
    for (const ancestor of ancestry(byName, parent)) counts.set(ancestor.name, (counts.get(ancestor.name) ?? 0) + 1);
  }
  return counts;
}
