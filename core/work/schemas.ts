import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { isReservedName, reservedNameMessage } from "../reserved-names";
import { agentNameSchema } from "../agents/profile";
import { modelChoiceSchema } from "../run/limits";
import { toolNamePattern } from "../tools/tool-spec";

/** Feature names are slugs short enough that a worker's name (`<feature>-task-<n>`) is an agent name. */
export const featureNameSchema = lazySchema(() =>
  z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/, "a lower-case slug: a letter, then letters, digits or '-', at most 40 characters")
    .refine((name) => !isReservedName(name), reservedNameMessage),
);

/** What a feature's worker agents are made from: one per task, each its own Durable Object and memory. */
export const workerTemplateSchema = lazySchema(() =>
  z.strictObject({
    systemPrompt: z
      .string()
      .max(16_000)
      .default(
        "You are a worker agent. You carry out exactly one task of a feature, as its spec says, and report what you did.",
      ),
    model: modelChoiceSchema.optional(),
    /** Built-in tools the worker has besides the workspace and task tools. */
    tools: z.array(z.string().regex(toolNamePattern, "a tool name")).max(50).default([]),
    /** Tools that wait for a person's approval (task.block always does: its question is for a person). */
    approvalRequired: z.array(z.string().regex(toolNamePattern, "a tool name")).max(50).default([]),
  }),
);
export type WorkerTemplate = z.infer<typeof workerTemplateSchema>;

/** A git remote: an http(s) URL without credentials, a branch, and the project secret holding its token. */
export const remoteSchema = lazySchema(() =>
  z.strictObject({
    url: z
      .string()
      .max(2048)
      .url("an http(s) git URL such as https://github.com/acme/app.git")
      .refine((u) => /^https?:\/\//.test(u), "http or https only")
      .refine(
        (u) => !/^https?:\/\/[^/]*@/.test(u),
        "no credentials in the URL: put the token in a project secret and name it in tokenSecret",
      ),
    ref: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[A-Za-z0-9._/-]+$/, "a branch name such as main")
      .optional(),
    tokenSecret: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Z][A-Z0-9_]*$/, "a project secret's name, such as GITHUB_TOKEN")
      .optional(),
  }),
);

export const featureCreateSchema = lazySchema(() =>
  z.strictObject({
    name: featureNameSchema,
    title: z.string().min(1, "a title a person reads on the board").max(200),
    /** The agent that plans the feature and syncs its tasks (over the API; an agent's own tool sets itself). */
    orchestrator: agentNameSchema,
    worker: workerTemplateSchema.default(workerTemplateSchema.parse({})),
    /** Workspace paths (files, or folders ending in '/') every task's spec includes. Default: the `context/` folder. */
    contextFiles: z.array(z.string().min(1).max(512)).max(50).default(["context/"]),
    /** How many questions the planner may ask a person before it writes the plan (clarify). */
    maxQuestions: z.number().int().min(0).max(10).default(3),
    /** Files the workspace starts with (e.g. the brief a person wrote). */
    files: z.record(z.string().max(512), z.string().max(1024 * 1024)).optional(),
    /** Import the workspace from a git smart-HTTP remote (GitHub, Cloudflare Artifacts, self-hosted) at a ref; the token is a project secret's name. */
    repository: remoteSchema.optional(),
  }),
);
export type FeatureCreate = z.infer<typeof featureCreateSchema>;

export const planWriteSchema = lazySchema(() =>
  z.strictObject({
    markdown: z.string().min(1, "the plan's markdown, with a '## Tasks' list").max(200_000),
  }),
);

export const planCommentSchema = lazySchema(() =>
  z.strictObject({
    /** The plan version the comment is about (default: the latest). */
    version: z.number().int().min(1).optional(),
    line: z.number().int().min(1, "a 1-based line of the plan"),
    body: z.string().trim().min(1, "the comment's text").max(10_000),
  }),
);

export const answerSchema = lazySchema(() =>
  z.strictObject({
    answer: z.string().trim().min(1, "the answer to the worker's question").max(10_000),
  }),
);

export const taskNumberSchema = lazySchema(() => z.coerce.number().int().min(1, "a task number from 1").max(10_000));

/** A task in a path: its number on the board, or its stable key (which a re-sync that renumbers keeps). */
export const taskRefSchema = lazySchema(() =>
  z
    .string()
    .regex(
      /^(?:[1-9]\d{0,4}|(?!\d+$)[a-z0-9][a-z0-9-]{0,79})$/,
      "a task number from 1, or the task's key (e.g. 'login-form')",
    )
    .transform((v) => (/^\d+$/.test(v) ? Number(v) : v)),
);

/** A worker's own report on its task. */
export const taskReportSchema = lazySchema(() =>
  z.strictObject({
    status: z.enum(["done", "partial", "failed"], { error: "one of done, partial, failed" }).default("done"),
    summary: z.string().trim().min(1, "a short summary of what the task did").max(20_000),
  }),
);

/** What an operator may change on a feature after it exists. */
export const featurePatchSchema = lazySchema(() =>
  z.strictObject({
    title: z.string().min(1).max(200).optional(),
    worker: workerTemplateSchema.optional(),
    contextFiles: z.array(z.string().min(1).max(512)).max(50).optional(),
    maxQuestions: z.number().int().min(0).max(10).optional(),
  }),
);
export type FeaturePatch = z.infer<typeof featurePatchSchema>;
