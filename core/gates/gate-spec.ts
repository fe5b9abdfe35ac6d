import { z } from "zod";

/**
 * Custom deterministic gates an operator declares per agent (in the script or over the API).
 * `tool` narrows a gate to one tool name (or a prefix ending in `*`, e.g. `http.*`); absent = every tool.
 */
export const customGateSpecSchema = z.discriminatedUnion("kind", [
  z.object({
    name: z.string().min(1).max(64),
    kind: z.literal("deny-pattern"),
    tool: z.string().optional(),
    /** Argument field to test (dotted path); absent = the whole JSON of the arguments. */
    field: z.string().optional(),
    /**
     * A regular expression in RE2 syntax (JavaScript's, without backreferences or lookaround),
     * matched case-insensitively in linear time (core/gates/pattern.ts).
     */
    pattern: z.string().min(1).max(500),
  }),
  z.object({
    name: z.string().min(1).max(64),
    kind: z.literal("allow-hosts"),
    tool: z.string().optional(),
    /** Argument field holding a URL; default `url`. */
    field: z.string().optional(),
    /** Exact host names, or `*.example.com` for subdomains. */
    hosts: z.array(z.string().min(1)).min(1),
  }),
  z.object({
    name: z.string().min(1).max(64),
    kind: z.literal("max-calls"),
    tool: z.string().optional(),
    /** At most this many calls of the tool in one run. */
    max: z.number().int().min(0),
  }),
]);

export type CustomGateSpec = z.infer<typeof customGateSpecSchema>;
