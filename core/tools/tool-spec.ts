import { z } from "zod";
import { scopes } from "../auth/scopes";
import { lazySchema } from "../lazy-schema";

/** Where a tool's code runs. `agent` tools are delegations to a connected agent; `script` tools run in the sandbox (core/sandbox). */
export const toolRuntimes = ["builtin", "http", "mcp", "agent", "script"] as const;
export type ToolRuntime = (typeof toolRuntimes)[number];

/** Tool names: dotted or underscored lowercase words, e.g. `clock.now`, `ask_airtable`, `github.list_prs`. */
export const toolNamePattern = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

export const toolSpecSchema = lazySchema(() =>
  z.object({
    name: z
      .string()
      .regex(toolNamePattern, "lowercase words joined by '.', '_' or '-', starting with a letter")
      .max(64),
    description: z.string().max(2000),
    /** JSON Schema of the arguments object. */
    parameters: z.record(z.string(), z.unknown()),
    runtime: z.enum(toolRuntimes),
    /**
     * The token scope a call needs: the scope of the tool's own API route (a built-in's is declared
     * beside its definition, tested against the route's `scope()` declaration). Absent = `chat`, ordinary agent work.
     * A run whose principal has less waits for a holder's approval or is refused (core/gates scopeGate).
     */
    scope: z.enum(scopes).optional(),
    /** A person must approve each call before it runs (the run waits in `waiting_approval`). */
    requiresApproval: z.boolean().optional(),
    /** Per-call time limit in ms; the agent's `toolTimeoutMs` applies when absent. */
    timeoutMs: z.number().int().positive().max(300_000).optional(),
    /**
     * Safe to repeat: read-only, or the same call (same idempotency key) has its effect once. A call
     * interrupted by a restart is repeated only for such tools; otherwise the model is told its
     * outcome is unknown.
     */
    idempotent: z.boolean().optional(),
    /** A human-readable name (MCP `title`). */
    title: z.string().max(200).optional(),
    /** JSON Schema of the structured result (MCP `outputSchema`). */
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    /**
     * MCP's behaviour hints (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`,
     * `title`), kept as the server sent them; `idempotent` is what Pantheon acts on.
     */
    annotations: z.record(z.string(), z.unknown()).optional(),
    /** OpenAI's strict mode: the model's arguments always match the schema (OpenAI `strict`). */
    strict: z.boolean().optional(),
  }),
);

/**
 * One definition of a tool, convertible to MCP manifests, OpenAI function tools and Anthropic tool use.
 * @example
 * const now: ToolSpec = { name: "clock.now", description: "Current time (ISO 8601)", parameters: { type: "object", properties: {} }, runtime: "builtin" };
 */
export type ToolSpec = z.infer<typeof toolSpecSchema>;
