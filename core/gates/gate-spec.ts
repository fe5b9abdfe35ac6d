import { z } from "zod";
import { lazySchema } from "../lazy-schema";

/**
 * What an agent sends besides tool calls: its final reply to a person, a message (a behavior plan's
 * `message` step, a question to another agent), a memory it stores (`remember` steps,
 * `memory.store`, extraction after a turn), and its answer to another agent's question. Output gates check each of them before it leaves.
 */
export const outputKinds = ["reply", "message", "memory", "answer"] as const;
export type OutputKind = (typeof outputKinds)[number];
/** What a gate may check: `tool` (proposed tool calls) or one of the output kinds. */
export const gateTargets = ["tool", ...outputKinds] as const;
export type GateTarget = (typeof gateTargets)[number];

/** `on`: what the gate checks; absent = tool calls only (what a gate checked before outputs were gated). */
const on = () => z.array(z.enum(gateTargets)).min(1).max(gateTargets.length);

/**
 * Custom deterministic gates an operator declares per agent (in the script or over the API).
 * `tool` narrows a gate to one tool name (or a prefix ending in `*`, e.g. `http.*`); absent = every tool.
 */
export const customGateSpecSchema = lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.object({
      name: z.string().min(1).max(64),
      kind: z.literal("deny-pattern"),
      /** Tool calls (the default), outputs, or both: `["tool", "reply"]`. On an output the whole text is tested. */
      on: on().optional(),
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
    z.object({
      name: z.string().min(1).max(64),
      kind: z.literal("max-size"),
      /** The outputs it limits (tool arguments have their tools' schemas). */
      on: z.array(z.enum(outputKinds)).min(1).max(outputKinds.length),
      /** At most this many characters. */
      max: z.number().int().min(1).max(1_000_000),
    }),
  ]),
);

export type CustomGateSpec = z.infer<typeof customGateSpecSchema>;
/** A custom gate's kind: one per member of the schema's union. */
export type CustomGateKind = CustomGateSpec["kind"];

/**
 * Every custom gate kind, read from the schema's union (so a new member is listed with nothing else
 * to edit): what the DSL accepts and what its errors name. A function, not a constant: reading the
 * union builds the schema, which must not happen while the isolate starts (core/lazy-schema.ts).
 * @example
 * customGateKinds(); // ["deny-pattern", "allow-hosts", "max-calls", "max-size"]
 */
export function customGateKinds(): CustomGateKind[] {
  return customGateSpecSchema.options.map((option) => option.shape.kind.value);
}
