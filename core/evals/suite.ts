import { z } from "zod";
import { lazySchema } from "../lazy-schema";

/**
 * An eval suite: cases sent to an agent as a person would, each answer graded by deterministic
 * graders (exact, contains, regex, a JSON schema, a tool called with arguments) or a model judge
 * with a rubric. A suite passes when the share of passing cases reaches its threshold. Written in
 * YAML or JSON (the CLI reads either; the API takes JSON).
 */

const modelName = lazySchema(() =>
  z.string().regex(/^[a-z0-9-]+:[^\s]{1,120}$/, "provider:name, e.g. openai:gpt-4o-mini"),
);

export const graderSchema = lazySchema(() =>
  z.union(
    [
      z.strictObject({ exact: z.string().max(20_000), ignoreCase: z.boolean().optional() }),
      z.strictObject({ contains: z.string().min(1).max(2000), ignoreCase: z.boolean().optional() }),
      z.strictObject({ notContains: z.string().min(1).max(2000), ignoreCase: z.boolean().optional() }),
      z.strictObject({ regex: z.string().min(1).max(2000), ignoreCase: z.boolean().optional() }),
      z.strictObject({ schema: z.record(z.string(), z.json()) }),
      z.strictObject({ tool: z.string().min(1).max(128), arguments: z.record(z.string(), z.json()).optional() }),
      z.strictObject({
        judge: z.strictObject({
          rubric: z.string().min(1).max(4000),
          model: modelName.optional(),
          passAt: z.number().min(0).max(1).default(0.7),
        }),
      }),
    ],
    {
      error:
        "a grader is one of { exact }, { contains }, { notContains }, { regex }, { schema }, { tool, arguments? }, { judge: { rubric, model?, passAt? } }",
    },
  ),
);
export type Grader = z.infer<typeof graderSchema>;

export const evalCaseSchema = lazySchema(() =>
  z
    .strictObject({
      name: z.string().trim().min(1).max(120),
      /** What the person says. */
      input: z.string().trim().min(1).max(32_000).optional(),
      /** Structured input (as `POST …/messages` takes it): behaviors read its fields. */
      data: z.record(z.string(), z.json()).optional(),
      /** Cases naming the same session share one conversation, in the suite's order; others each get a new one. */
      session: z.string().trim().min(1).max(64).optional(),
      expect: z.array(graderSchema).min(1, "at least one grader").max(20),
    })
    .refine((c) => c.input !== undefined || c.data !== undefined, {
      message: "a case sends input, data, or both",
      path: ["input"],
    }),
);
export type EvalCase = z.infer<typeof evalCaseSchema>;

export const evalSuiteSchema = lazySchema(() =>
  z
    .strictObject({
      name: z.string().trim().min(1).max(120),
      description: z.string().max(2000).optional(),
      /** The share of cases that must pass (0–1); below it `pantheon eval run` exits 1. */
      threshold: z.number().min(0).max(1).default(1),
      /** The model judges use when a judge grader names none. */
      judge: z.strictObject({ model: modelName }).optional(),
      cases: z.array(evalCaseSchema).min(1, "at least one case").max(200, "at most 200 cases"),
    })
    .superRefine((suite, ctx) => {
      const seen = new Set<string>();
      suite.cases.forEach((c, i) => {
        if (seen.has(c.name))
          ctx.addIssue({
            code: "custom",
            path: ["cases", i, "name"],
            message: `another case is named '${c.name}': names say which case got better or worse, so each is unique`,
          });
        seen.add(c.name);
      });
    }),
);
export type EvalSuite = z.infer<typeof evalSuiteSchema>;
