import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { agentNameSchema } from "../agents/profile";
import { fanOutPolicies, tieRules } from "./policies";

/** Most targets one fan-out asks (each is a run of another agent). */
export const maxFanOutTargets = 16;

/**
 * A fan-out as the API, the `agent.fanout` tool and workflow steps give it. Every refusal names the
 * field and what is allowed.
 * @example
 * fanOutSpecSchema.parse({ targets: ["a", "b"], question: "q", policy: "critique", rounds: 2 });
 */
export const fanOutSpecSchema = lazySchema(() =>
  z
    .strictObject({
      targets: z
        .array(agentNameSchema)
        .min(1, "at least one agent to ask")
        .max(maxFanOutTargets, `at most ${maxFanOutTargets} agents`),
      question: z.string().min(1, "a question to ask").max(32_000, "at most 32,000 characters"),
      policy: z.enum(fanOutPolicies, { error: `one of ${fanOutPolicies.join(", ")}` }).default("all"),
      weights: z
        .record(z.string(), z.number().positive("a weight above 0").max(1000, "a weight up to 1000"))
        .optional(),
      rounds: z.number().int().min(1, "1 to 3 rounds").max(3, "1 to 3 rounds").optional(),
      retries: z.number().int().min(0, "0 to 3 retries").max(3, "0 to 3 retries").optional(),
      tie: z.enum(tieRules, { error: `one of ${tieRules.join(", ")}` }).optional(),
    })
    .superRefine((spec, ctx) => {
      if (new Set(spec.targets).size !== spec.targets.length)
        ctx.addIssue({ code: "custom", path: ["targets"], message: "each agent once" });
      if ((spec.policy === "critique" || spec.policy === "review") && spec.targets.length < 2)
        ctx.addIssue({
          code: "custom",
          path: ["targets"],
          message: `${spec.policy} needs two agents or more: the first ${spec.policy === "critique" ? "proposes, the others critique" : "writes, the others review"}`,
        });
      for (const name of Object.keys(spec.weights ?? {})) {
        if (!spec.targets.includes(name))
          ctx.addIssue({ code: "custom", path: ["weights", name], message: `'${name}' is not one of the targets` });
      }
      if (spec.weights && spec.policy !== "vote")
        ctx.addIssue({ code: "custom", path: ["weights"], message: "weights apply to policy 'vote' only" });
      if (spec.rounds !== undefined && spec.policy !== "critique")
        ctx.addIssue({ code: "custom", path: ["rounds"], message: "rounds apply to policy 'critique' only" });
      if (spec.retries !== undefined && spec.policy !== "review")
        ctx.addIssue({ code: "custom", path: ["retries"], message: "retries apply to policy 'review' only" });
      if (spec.tie !== undefined && spec.policy !== "vote" && spec.policy !== "majority")
        ctx.addIssue({ code: "custom", path: ["tie"], message: "a tie rule applies to 'majority' and 'vote' only" });
    }),
);
