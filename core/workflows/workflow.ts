import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { agentNameSchema } from "../agents/profile";
import { fanOutPolicies, tieRules, type FanOutPolicy, type TieRule } from "../bus/policies";
import { maxFanOutTargets } from "../bus/fanout-spec";
import { toolNamePattern } from "../tools/tool-spec";

/** Step ids and workflow names: what `{{id}}` in a later step's input names. */
export const stepIdPattern = /^[a-z][a-z0-9-]{0,62}$/;
export const maxWorkflowSteps = 32;

/**
 * One step of a workflow. `after` are its incoming edges: it starts once those steps are done, and
 * their outputs fill `{{step-id}}` in its input (`{{input}}` is the workflow's input).
 * - `ask`: one agent is asked `input`.
 * - `fanout`: `targets` are asked `input`, answers combined under `policy` (the fan-out engine).
 * - `tool`: one of the agent's tools runs with `args` (string values are templates too), through its gates.
 * - `join`: no question; the outputs of `after` combine under `policy` (all, first, majority, vote).
 */
export type WorkflowStep =
  | { id: string; kind: "ask"; agent: string; input: string; after: string[] }
  | {
      id: string;
      kind: "fanout";
      targets: string[];
      policy: FanOutPolicy;
      input: string;
      after: string[];
      weights?: Record<string, number>;
      rounds?: number;
      retries?: number;
      tie?: TieRule;
    }
  | { id: string; kind: "tool"; tool: string; args: Record<string, unknown>; after: string[] }
  | {
      id: string;
      kind: "join";
      policy: "all" | "first" | "majority" | "vote";
      after: string[];
      weights?: Record<string, number>;
      tie?: TieRule;
    };

export interface Workflow {
  name: string;
  description?: string;
  steps: WorkflowStep[];
}

export const joinPolicies = ["all", "first", "majority", "vote"] as const;

const stepId = () =>
  z
    .string()
    .regex(stepIdPattern, "a step id: a lowercase letter, then letters, digits or '-' (at most 63)")
    .refine((id) => id !== "input", "'input' names the workflow's input; choose another id");
const after = () => z.array(stepId()).max(maxWorkflowSteps).default([]);
const template = () =>
  z.string().min(1, "a non-empty input (a template: {{input}}, {{step-id}})").max(32_000, "at most 32,000 characters");

const stepSchema = () =>
  z.discriminatedUnion(
    "kind",
    [
      z.strictObject({
        id: stepId(),
        kind: z.literal("ask"),
        agent: agentNameSchema,
        input: template(),
        after: after(),
      }),
      z.strictObject({
        id: stepId(),
        kind: z.literal("fanout"),
        targets: z.array(agentNameSchema).min(2, "a fan-out asks two agents or more").max(maxFanOutTargets),
        policy: z.enum(fanOutPolicies, { error: `one of ${fanOutPolicies.join(", ")}` }).default("all"),
        input: template(),
        after: after(),
        weights: z.record(z.string(), z.number().positive().max(1000)).optional(),
        rounds: z.number().int().min(1).max(3).optional(),
        retries: z.number().int().min(0).max(3).optional(),
        tie: z.enum(tieRules).optional(),
      }),
      z.strictObject({
        id: stepId(),
        kind: z.literal("tool"),
        tool: z.string().regex(toolNamePattern, "a tool name"),
        args: z.record(z.string(), z.json()).default({}),
        after: after(),
      }),
      z.strictObject({
        id: stepId(),
        kind: z.literal("join"),
        policy: z.enum(joinPolicies, { error: `one of ${joinPolicies.join(", ")}` }),
        after: z.array(stepId()).min(2, "a join combines two steps or more").max(maxWorkflowSteps),
        weights: z.record(z.string(), z.number().positive().max(1000)).optional(),
        tie: z.enum(tieRules).optional(),
      }),
    ],
    { error: "kind: one of ask, fanout, tool, join" },
  );

/**
 * A workflow as a script or the API gives it: steps with unique ids, edges only to steps that
 * exist, no cycle. Refusals name the step and what is wrong.
 * @example
 * workflowSchema.parse({ name: "triage", steps: [{ id: "a", kind: "ask", agent: "judge", input: "{{input}}" }] });
 */
export const workflowSchema = lazySchema(() =>
  z
    .strictObject({
      name: z.string().regex(stepIdPattern, "a workflow name: a lowercase letter, then letters, digits or '-'"),
      description: z.string().max(2000).optional(),
      steps: z
        .array(stepSchema())
        .min(1, "at least one step")
        .max(maxWorkflowSteps, `at most ${maxWorkflowSteps} steps`),
    })
    .superRefine((wf, ctx) => {
      const ids = new Set<string>();
      wf.steps.forEach((step, i) => {
        if (ids.has(step.id))
          ctx.addIssue({ code: "custom", path: ["steps", i, "id"], message: `step '${step.id}' is defined twice` });
        ids.add(step.id);
      });
      wf.steps.forEach((step, i) => {
        for (const [j, dep] of step.after.entries()) {
          if (!ids.has(dep))
            ctx.addIssue({
              code: "custom",
              path: ["steps", i, "after", j],
              message: `no step '${dep}' (steps: ${[...ids].join(", ")})`,
            });
          if (dep === step.id)
            ctx.addIssue({
              code: "custom",
              path: ["steps", i, "after", j],
              message: `step '${step.id}' cannot wait for itself`,
            });
        }
        const text = step.kind === "tool" ? JSON.stringify(step.args) : step.kind === "join" ? "" : step.input;
        for (const ref of referencesIn(text)) {
          if (ref !== "input" && !step.after.includes(ref))
            ctx.addIssue({
              code: "custom",
              path: ["steps", i],
              message: `step '${step.id}' uses {{${ref}}} but does not list '${ref}' in after`,
            });
        }
      });
      const cycle = findCycle(wf.steps);
      if (cycle)
        ctx.addIssue({ code: "custom", path: ["steps"], message: `the steps form a cycle: ${cycle.join(" → ")}` });
    }),
);

/** The `{{name}}` references of a template. */
export function referencesIn(template: string): string[] {
  return [...template.matchAll(/\{\{\s*([a-z][a-z0-9-]*)\s*\}\}/g)].map((m) => m[1]!);
}

/** Fills `{{input}}` and `{{step-id}}` from `values`; a name without a value stays as written. */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([a-z][a-z0-9-]*)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name]! : whole,
  );
}

function findCycle(steps: readonly WorkflowStep[]): string[] | undefined {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "open") return [...path.slice(path.indexOf(id)), id];
    state.set(id, "open");
    path.push(id);
    for (const dep of byId.get(id)?.after ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const s of steps) {
    const found = visit(s.id);
    if (found) return found;
  }
  return undefined;
}
