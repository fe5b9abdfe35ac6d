import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { customGateSpecSchema, type CustomGateSpec } from "../gates/gate-spec";
import { denyPatternExpected, denyPatternProblems } from "../gates/pattern";
import { denyToolsSchema, memoryPolicySchema, type MemoryPolicy } from "../run/knobs";
import {
  modelChoiceSchema,
  modelSettingKeys,
  runLimitKeys,
  runLimitsSchema,
  type ModelSettings,
  type RunLimits,
} from "../run/limits";
import { toolNamePattern } from "../tools/tool-spec";
import { cronExpected, cronProblem, durationExpected, parseDuration } from "./time";
import { isReservedName, reservedNameMessage } from "../reserved-names";
import { workflowSchema, type Workflow } from "../workflows/workflow";
import { grantAccesses, grantSource, type GrantAccess, type GrantSpec } from "../context/grants";
import { supervisePolicySchema, type SupervisePolicy } from "../behaviors/supervision";
import type { MessageWhen } from "../behaviors/message-choice";

/** Names of actors, talents, behaviors and connections. */
export const namePattern = /^[a-z][a-z0-9-]{0,62}$/;
const nameExpected = "a lowercase name: a letter, then letters, digits or '-' (at most 63)";
const nameSchema = lazySchema(() =>
  z
    .string()
    .regex(namePattern, nameExpected)
    .refine((name) => !isReservedName(name), reservedNameMessage),
);

/** Where a `get` reads from: the behavior's input, or the run context. */
export type Scope = "input" | "ctx";

/**
 * A JSON-serialisable expression: literals stand for themselves, arrays for lists of values.
 * `{ get: ["input", "repo"] }` reads a field (no keys = the whole scope), `{ prev: true }` is the
 * previous action's result (written `"$prev"` in the DSL).
 */
export type Expr =
  | string
  | number
  | boolean
  | null
  | Expr[]
  | { get: [Scope, ...string[]] }
  | { concat: Expr[] }
  | { map: { [key: string]: Expr } }
  | { prev: true };

export const exprSchema: z.ZodType<Expr> = lazySchema(() =>
  z.lazy(() =>
    z.union([
      z.literal("$prev").transform((): Expr => ({ prev: true })),
      z.string().max(100_000),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(exprSchema).max(1000),
      z.strictObject({ get: z.tuple([z.enum(["input", "ctx"])], z.string().min(1).max(256)) }),
      z.strictObject({ concat: z.array(exprSchema).max(1000) }),
      z.strictObject({ map: z.record(z.string().max(256), exprSchema) }),
      z.strictObject({ prev: z.literal(true) }),
    ]),
  ),
);

export const messageRoles = ["assistant", "system", "user"] as const;

/** One step of a plan. `think` hands the behavior's goal to the model-driven run loop. */
export type Action =
  | { kind: "tool"; tool: string; args: { [key: string]: Expr } }
  | { kind: "message"; role: (typeof messageRoles)[number]; content: Expr }
  | { kind: "ask"; targets: string[]; question: Expr }
  | { kind: "remember"; content: Expr }
  | { kind: "think" }
  | { kind: "spawn"; script: string | ActorScript; goal: Expr; supervise?: SupervisePolicy };

export const actionSchema: z.ZodType<Action> = lazySchema(() =>
  z.lazy(() =>
    z.discriminatedUnion("kind", [
      z.strictObject({
        kind: z.literal("tool"),
        tool: z.string().max(64).regex(toolNamePattern, "a tool name such as git.diff"),
        args: z.record(z.string().max(256), exprSchema).default({}),
      }),
      z.strictObject({ kind: z.literal("message"), role: z.enum(messageRoles), content: exprSchema }),
      z.strictObject({ kind: z.literal("ask"), targets: z.array(nameSchema).min(1).max(32), question: exprSchema }),
      z.strictObject({ kind: z.literal("remember"), content: exprSchema }),
      z.strictObject({ kind: z.literal("think") }),
      z.strictObject({
        kind: z.literal("spawn"),
        script: z.union([nameSchema, actorScriptSchema]),
        goal: exprSchema,
        supervise: supervisePolicySchema.optional(),
      }),
    ]),
  ),
);

/** A plan is an ordered list of steps (a single action is a one-step plan). */
export const planSchema = lazySchema(() => z.strictObject({ steps: z.array(actionSchema).min(1).max(64) }));
export type Plan = z.infer<typeof planSchema>;

const durationSchema = lazySchema(() =>
  z.string().refine((s) => parseDuration(s) !== undefined, { message: durationExpected }),
);

/** `ms` is derived from the duration; JSON may omit it, and when given it must agree. */
function checkMs(duration: string, ms: number | undefined, ctx: z.RefinementCtx): void {
  const expected = parseDuration(duration);
  if (ms !== undefined && expected !== undefined && ms !== expected)
    ctx.addIssue({
      code: "custom",
      path: ["ms"],
      message: `ms must be ${expected} for "${duration}"`,
      params: { expected: String(expected), found: String(ms) },
    });
}

const everySchema = () =>
  z
    .strictObject({ kind: z.literal("every"), every: durationSchema, ms: z.number().int().optional() })
    .superRefine((t, ctx) => checkMs(t.every, t.ms, ctx))
    .transform((t) => ({ kind: t.kind, every: t.every, ms: parseDuration(t.every) ?? 0 }));
const onIdleSchema = () =>
  z
    .strictObject({ kind: z.literal("on-idle"), idle: durationSchema, ms: z.number().int().optional() })
    .superRefine((t, ctx) => checkMs(t.idle, t.ms, ctx))
    .transform((t) => ({ kind: t.kind, idle: t.idle, ms: parseDuration(t.idle) ?? 0 }));

export const triggerSchema = lazySchema(() =>
  z.union([
    everySchema(),
    z.strictObject({
      kind: z.literal("cron"),
      cron: z
        .string()
        .max(200)
        .refine((c) => cronProblem(c) === undefined, { message: cronExpected }),
    }),
    onIdleSchema(),
  ]),
);
export type Trigger =
  | { kind: "every"; every: string; ms: number }
  | { kind: "cron"; cron: string }
  | { kind: "on-idle"; idle: string; ms: number };

export const behaviorModes = ["active", "passive", "persistent"] as const;
export const policies = ["all", "first", "majority", "vote", "critique", "review"] as const;

/** What a passive or persistent behavior's trigger runs it with: read as `(get input "…")`, beside `trigger` and `at`. */
const behaviorInputSchema = () =>
  z
    .record(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[A-Za-z_][\w.-]*$/, "a field name: letters, digits, '_', '.', '-'")
        .refine((name) => !isReservedName(name), reservedNameMessage),
      z.json(),
    )
    .refine((value) => Object.keys(value).length <= 64, "at most 64 fields")
    .refine((value) => JSON.stringify(value).length <= 32_000, "at most 32,000 characters of JSON")
    .refine((value) => !("trigger" in value) && !("at" in value), "'trigger' and 'at' are set by the run itself");

export const behaviorSchema = lazySchema(() =>
  z.strictObject({
    name: nameSchema,
    mode: z.enum(behaviorModes),
    trigger: triggerSchema.optional(),
    input: behaviorInputSchema().optional(),
    goal: exprSchema,
    plan: planSchema,
    /** How answers of a fan-out `ask` combine. */
    policy: z.enum(policies).optional(),
    retry: z.strictObject({ max: z.number().int().min(0).max(10) }).optional(),
    /** Which messages it takes (active and persistent behaviors); absent: every message. */
    when: z
      .strictObject({
        contains: z.array(z.string().min(1).max(200)).min(1).max(32).optional(),
        has: z.array(z.string().min(1).max(64)).min(1).max(32).optional(),
      })
      .refine((w) => w.contains !== undefined || w.has !== undefined, "give :contains [words] or :has [fields]")
      .optional(),
    /** Among the behaviors a message matches, the highest priority takes it (ties: the first in the script). */
    priority: z.number().int().min(-1000).max(1000).optional(),
    /** Its result is pushed to people's phones (`:notify`, docs/push.md). */
    notify: z.literal(true).optional(),
  }),
);
export interface Behavior {
  name: string;
  mode: (typeof behaviorModes)[number];
  trigger?: Trigger;
  /** The input its trigger runs it with (passive and persistent behaviors). */
  input?: Record<string, unknown>;
  goal: Expr;
  plan: Plan;
  policy?: (typeof policies)[number];
  retry?: { max: number };
  when?: MessageWhen;
  priority?: number;
  notify?: true;
}

export const talentSchema = lazySchema(() =>
  z.strictObject({ name: nameSchema, behaviors: z.array(behaviorSchema).max(64) }),
);
export interface Talent {
  name: string;
  behaviors: Behavior[];
}

/** The run limits a script may set: any subset, without the defaults filled in (the runtime applies those). */
export const scriptLimitsSchema = lazySchema(
  () =>
    z.strictObject(
      Object.fromEntries(
        Object.entries(runLimitsSchema.shape).map(([key, field]) => [
          key,
          ("unwrap" in field ? field.unwrap() : field).optional(),
        ]),
      ),
    ) as unknown as z.ZodType<Partial<RunLimits>>,
);

/** Field names a script may set in `(limits …)` and `(model …)`: the schemas' keys, in their order. */
export const limitKeys: (keyof RunLimits)[] = runLimitKeys;
export const modelKeys: (keyof ModelSettings)[] = modelSettingKeys;

/**
 * An agent definition, written in the Lisp DSL or as this very object in JSON.
 * @example
 * const script: ActorScript = actorScriptSchema.parse({ name: "echo", description: "Echoes", talents: [] });
 */
export interface ActorScript {
  name: string;
  role?: string;
  description: string;
  /** Fields the compiler derived because the script left them out (said so, not silently). */
  derived?: { description?: string };
  model: ModelSettings;
  contextSources: string[];
  tools: string[];
  connections: string[];
  limits: Partial<RunLimits>;
  gates: CustomGateSpec[];
  /** What each context source is, for an agent choosing sources by goal (`context.sources`). */
  sourceDetails?: Record<string, SourceDetails>;
  /**
   * The agent's own sources other agents may use: a bare name grants read to the agents it is
   * connected with (either direction); `{ source, to, access }` names the grantees and the access.
   */
  grants?: GrantSpec[];
  spawn?: { allowed: boolean; quota: number };
  /** Tools the agent never gets (names or `prefix.*`): `(deny-tools "memory.*")`. */
  denyTools?: string[];
  /** The conversation policy and memories' time to live: `(memory :policy "window" :ttl-ms 86400000)`. */
  memory?: MemoryPolicy;
  /** Standing goals: in every run's context, and what `tick` works toward. */
  goals?: string[];
  talents: Talent[];
  workflows?: Workflow[];
}

/** A context source's label and description (the design's label and `where`). */
export interface SourceDetails {
  label?: string;
  description?: string;
}

const sourceDetailsSchema = () =>
  z.strictObject({ label: z.string().min(1).max(100).optional(), description: z.string().max(1000).optional() });
const grantSchema = () =>
  z.union([
    z.string().min(1).max(128),
    z.strictObject({
      source: z.string().min(1).max(128),
      to: z.array(nameSchema).min(1).max(64).optional(),
      access: z
        .enum(["read", "search"] as const satisfies readonly GrantAccess[], {
          message: `one of: ${grantAccesses.join(", ")}`,
        })
        .optional(),
    }),
  ]);

const baseScriptSchema = () =>
  z.strictObject({
    name: nameSchema,
    role: z.string().min(1).max(200).optional(),
    description: z.string().max(2000),
    derived: z.strictObject({ description: z.string().max(200).optional() }).optional(),
    model: modelChoiceSchema.prefault({}),
    contextSources: z.array(z.string().min(1).max(128)).max(64).default([]),
    tools: z.array(z.string().max(64).regex(toolNamePattern, "a tool name such as git.diff")).max(256).default([]),
    connections: z.array(nameSchema).max(64).default([]),
    limits: scriptLimitsSchema.default({}),
    gates: z.array(customGateSpecSchema).max(64).default([]),
    sourceDetails: z.record(z.string().min(1).max(128), sourceDetailsSchema()).optional(),
    grants: z.array(grantSchema()).max(64).optional(),
    spawn: z.strictObject({ allowed: z.boolean(), quota: z.number().int().min(0).max(100) }).optional(),
    denyTools: denyToolsSchema.optional(),
    memory: memoryPolicySchema.optional(),
    goals: z.array(z.string().min(1).max(2000)).min(1).max(32).optional(),
    talents: z.array(talentSchema).max(64).default([]),
    /** Graphs of steps the agent runs on request (core/workflows). */
    workflows: z.array(workflowSchema).max(16).optional(),
  });

export const actorScriptSchema: z.ZodType<ActorScript> = lazySchema(
  () =>
    baseScriptSchema().superRefine((script, ctx) => {
      const issue = (path: (string | number)[], message: string, expected: string, found: string) =>
        ctx.addIssue({ code: "custom", path, message, params: { expected, found } });
      duplicates(
        script.talents.map((t) => t.name),
        (i, name) =>
          issue(["talents", i, "name"], `talent '${name}' is defined twice`, "a unique talent name", `"${name}" again`),
      );
      const behaviors = script.talents.flatMap((t, ti) =>
        t.behaviors.map((b, bi) => ({ b, path: ["talents", ti, "behaviors", bi] })),
      );
      duplicates(
        behaviors.map((x) => x.b.name),
        (i, name) =>
          issue(
            [...behaviors[i]!.path, "name"],
            `behavior '${name}' is defined twice`,
            "a unique behavior name",
            `"${name}" again`,
          ),
      );
      duplicates(
        script.gates.map((g) => g.name),
        (i, name) =>
          issue(["gates", i, "name"], `gate '${name}' is defined twice`, "a unique gate name", `"${name}" again`),
      );
      for (const { index, message } of denyPatternProblems(script.gates))
        issue(
          ["gates", index, "pattern"],
          message,
          denyPatternExpected,
          JSON.stringify((script.gates[index] as { pattern: string }).pattern),
        );
      (script.grants ?? []).forEach((grant, i) => {
        const source = grantSource(grant);
        if (source.includes("/"))
          issue(
            ["grants", i],
            `grant '${source}' names another agent's source: an agent grants only its own`,
            "one of this actor's own context sources",
            `"${source}"`,
          );
        else if (!script.contextSources.includes(source))
          issue(
            ["grants", i],
            `grant '${source}' is not one of this actor's context sources`,
            `one of: ${script.contextSources.join(", ") || "(no context sources declared)"}`,
            `"${source}"`,
          );
      });
      for (const source of Object.keys(script.sourceDetails ?? {}))
        if (!script.contextSources.includes(source))
          issue(
            ["sourceDetails", source],
            `source details for '${source}', which is not one of this actor's context sources`,
            `one of: ${script.contextSources.join(", ") || "(no context sources declared)"}`,
            `"${source}"`,
          );
      for (const { b, path } of behaviors) {
        if (b.mode === "active" && b.trigger)
          issue(
            [...path, "trigger"],
            `active behavior '${b.name}' runs on each message and takes no trigger`,
            "a trigger only on :passive or :persistent",
            b.trigger.kind,
          );
        if (b.mode === "passive" && (b.when || b.priority !== undefined))
          issue(
            [...path, b.when ? "when" : "priority"],
            `passive behavior '${b.name}' never takes a message: :when and :priority choose among :active and :persistent ones`,
            "(:when / :priority only on :active or :persistent)",
            b.when ? "when" : "priority",
          );
        if (b.mode === "active" && b.input)
          issue(
            [...path, "input"],
            `active behavior '${b.name}' runs on each message, whose input it reads: it declares none`,
            "an input only on :passive or :persistent",
            "input",
          );
        b.plan.steps.forEach((step, si) => {
          const at = [...path, "plan", "steps", si];
          if (step.kind === "ask")
            step.targets.forEach((target, ti) => {
              if (!script.connections.includes(target))
                issue(
                  [...at, "targets", ti],
                  `unknown connection '${target}': declare it in (connections …)`,
                  `one of: ${script.connections.join(", ") || "(no connections declared)"}`,
                  `"${target}"`,
                );
            });
          if (step.kind === "spawn" && !script.spawn?.allowed)
            issue(
              at,
              `behavior '${b.name}' spawns an actor but spawning is not allowed`,
              "(spawn :allowed true :quota n) in the actor",
              "no spawn permission",
            );
        });
      }
    }) as unknown as z.ZodType<ActorScript>,
);

function duplicates(names: string[], report: (index: number, name: string) => void): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (seen.has(name)) report(i, name);
    seen.add(name);
  });
}
