import { z } from "zod";
import { lazySchema } from "../lazy-schema";

// The profile knobs of a run that both an agent's runtime and its script set (core/agents, core/dsl).

/** A tool denylist: tool names, or `prefix.*` for every tool under a prefix (`memory.*`). */
export const denyToolsSchema = lazySchema(() =>
  z
    .array(
      z
        .string()
        .max(64)
        .regex(
          /^[a-z0-9_-]+([._][a-z0-9_-]+)*(\.\*)?$/,
          "a tool name such as http.fetch, or a prefix such as memory.*",
        ),
    )
    .max(100),
);

export const memoryPolicies = ["none", "window", "summary"] as const;
/**
 * The conversation in context: `none` (only the request: no history, no summary, no memories),
 * `window` (the last `maxHistory` messages; older ones are dropped, never summarised), `summary`
 * (the window plus a rolling summary of what left it: the default). `ttlMs`: memories older than
 * this are not compiled into context, and the idle alarm deletes them.
 */
export const memoryPolicySchema = lazySchema(() =>
  z.strictObject({
    policy: z.enum(memoryPolicies, { error: `one of ${memoryPolicies.join(", ")}` }).optional(),
    ttlMs: z
      .number()
      .int()
      .min(60_000, "at least 60000 (one minute)")
      .max(3650 * 86_400_000)
      .optional(),
  }),
);
export type MemoryPolicy = z.infer<typeof memoryPolicySchema>;

/**
 * Whether the denylist refuses `tool`.
 * @example
 * toolDenied("memory.forget", ["memory.*"]); // true
 * toolDenied("clock.now", ["memory.*"]);     // false
 */
export function toolDenied(tool: string, denyTools: readonly string[] | undefined): boolean {
  return (denyTools ?? []).some((entry) =>
    entry.endsWith(".*") ? tool.startsWith(entry.slice(0, -1)) : entry === tool,
  );
}
