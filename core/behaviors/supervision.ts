import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { durationExpected, parseDuration } from "../dsl/time";

export const restartPolicies = ["never", "on-failure"] as const;
export const onDoneChoices = ["archive", "keep"] as const;

/**
 * How a parent supervises a child it spawns, named at the spawn site (`(spawn … :restart "on-failure"
 * :max-restarts 2 :backoff "5s" :ttl "1h" :on-done "archive")` or the `agent.spawn` tool's `supervise`).
 * `restart`: whether a failed run toward the goal is started again; `maxRestarts`: how many times;
 * `backoff`: the wait before the first restart (doubled for each later one); `ttl`: how long the child
 * may work toward its goal; `onDone`: whether it leaves the graph (archive) or stays (keep) once done.
 */
export interface SupervisePolicy {
  restart: (typeof restartPolicies)[number];
  maxRestarts: number;
  backoff?: string;
  ttl?: string;
  onDone: (typeof onDoneChoices)[number];
}

const duration = () =>
  z
    .string()
    .max(20)
    .refine((text) => parseDuration(text) !== undefined, { message: durationExpected });

export const supervisePolicySchema = lazySchema(() =>
  z.strictObject({
    restart: z.enum(restartPolicies, { error: `one of: ${restartPolicies.join(", ")}` }).default("never"),
    maxRestarts: z.number().int().min(0).max(10).default(0),
    backoff: duration().optional(),
    ttl: duration().optional(),
    onDone: z.enum(onDoneChoices, { error: `one of: ${onDoneChoices.join(", ")}` }).default("keep"),
  }),
) as unknown as z.ZodType<SupervisePolicy>;

/** The supervision of a child spawned without a policy: no restarts, kept (what spawning did before). */
export const unsupervised: SupervisePolicy = { restart: "never", maxRestarts: 0, onDone: "keep" };

/**
 * What a supervisor does when its child's run toward the goal failed for the `failures`-th time
 * (1 = the first failure): restart it at `at`, or give up and say why. Pure: the agent persists the
 * count and arms the alarm.
 * @example
 * afterFailure({ restart: "on-failure", maxRestarts: 2, backoff: "1s", onDone: "keep" }, { failures: 1, now: 0, spawnedAt: 0 })
 * // { restart: true, at: 1000, attempt: 1 }
 */
export function afterFailure(
  policy: SupervisePolicy,
  state: { failures: number; now: number; spawnedAt: number },
): { restart: true; at: number; attempt: number } | { restart: false; reason: string } {
  if (policy.restart === "never") return { restart: false, reason: "its policy is restart never" };
  if (state.failures > policy.maxRestarts)
    return {
      restart: false,
      reason: `restart limit reached: ${policy.maxRestarts} restart${policy.maxRestarts === 1 ? "" : "s"} allowed, ${state.failures} failures`,
    };
  const backoffMs = (policy.backoff ? (parseDuration(policy.backoff) ?? 0) : 0) * 2 ** (state.failures - 1);
  const at = state.now + backoffMs;
  const ttlMs = policy.ttl ? parseDuration(policy.ttl) : undefined;
  if (ttlMs !== undefined && at > state.spawnedAt + ttlMs)
    return { restart: false, reason: `its time to live (${policy.ttl}) ends before the next restart` };
  return { restart: true, at, attempt: state.failures };
}

/** When a child's time to live ends, or null when it has none. */
export function ttlEndsAt(policy: SupervisePolicy, spawnedAt: number): number | null {
  const ms = policy.ttl ? parseDuration(policy.ttl) : undefined;
  return ms === undefined ? null : spawnedAt + ms;
}
