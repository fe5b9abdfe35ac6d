import { runPrincipal } from "../auth";
import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { PantheonError } from "../../core/errors";
import {
  answerSchema,
  pullRequestBody,
  remoteSchema,
  featureCreateSchema,
  featureNameSchema,
  featurePatchSchema,
  planCommentSchema,
  planWriteSchema,
  taskRefSchema,
  type Principal,
} from "../../core/work";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { makeWork } from "../../durable-objects/feature/work";
import type { AppContext, AppEnv } from "../env";
import { scope } from "../scopes";
import { valid } from "../validation";

const featureParam = lazySchema(() => z.object({ feature: featureNameSchema }));
const taskParam = lazySchema(() => z.object({ feature: featureNameSchema, task: taskRefSchema }));
const questionParam = lazySchema(() =>
  z.object({
    feature: featureNameSchema,
    id: z.string().regex(/^q-[a-z0-9-]{1,40}$/, "a question's id, e.g. q-1a2b3c4d"),
  }),
);
const versionQuery = lazySchema(() => z.object({ version: z.coerce.number().int().min(1).optional() }));
const refSchema = () =>
  z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9._/-]+$/, "a branch name (main, tasks/<key>) or a commit sha");
const filesQuery = lazySchema(() =>
  z.object({ task: taskRefSchema.optional(), ref: refSchema().optional(), prefix: z.string().max(512).optional() }),
);
const fileQuery = lazySchema(() =>
  z.object({
    task: taskRefSchema.optional(),
    ref: refSchema().optional(),
    path: z.string().min(1, "the file's path, e.g. src/app.ts").max(512),
  }),
);
const commitsQuery = lazySchema(() =>
  z.object({ ref: refSchema().optional(), limit: z.coerce.number().int().min(1).max(500).default(50) }),
);
const shaParam = lazySchema(() =>
  z.object({ feature: featureNameSchema, sha: z.string().regex(/^[0-9a-f]{40}$/, "a full 40-character commit sha") }),
);
const downloadQuery = lazySchema(() => z.object({ format: z.enum(["bundle", "tar", "zip"]).default("bundle") }));
const secretName = () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Z][A-Z0-9_]*$/, "a project secret's name, such as GITHUB_TOKEN");
const pushBody = lazySchema(() =>
  z
    .strictObject({
      remote: remoteSchema.shape.url.optional(),
      branch: refSchema().optional(),
      tokenSecret: secretName().optional(),
    })
    .default({}),
);
const prBody = lazySchema(() =>
  z
    .strictObject({
      title: z.string().trim().min(1).max(256).optional(),
      base: refSchema().optional(),
      head: refSchema().optional(),
      tokenSecret: secretName().optional(),
    })
    .default({}),
);
const resolveBody = lazySchema(() =>
  z.strictObject({
    files: z
      .array(
        z.strictObject({
          path: z.string().min(1).max(512),
          content: z
            .string()
            .max(1024 * 1024)
            .nullable(),
        }),
      )
      .min(1, "each conflicting file's resolved content")
      .max(1000),
    summary: z.string().trim().min(1).max(20_000).optional(),
    key: z.string().min(1).max(128).optional(),
  }),
);
const commitBody = lazySchema(() =>
  z
    .strictObject({
      summary: z.string().trim().min(1).max(20_000).optional(),
      status: z.enum(["done", "partial"]).optional(),
      key: z.string().min(1).max(128).optional(),
    })
    .default({}),
);

/** The person behind a request: their token's principal and scope (core/work ownership reads it). */
const personOf = (c: AppContext): Principal & { kind: "person" } => ({
  kind: "person",
  id: c.get("principal"),
  scope: c.get("scope"),
});
const workOf = (c: AppContext) => makeWork(c.env, c.get("project"));

/** A feature of the request's project, or 404 naming it and the ones that exist. */
async function featureOf(c: AppContext, name: string) {
  const work = workOf(c);
  await work.resolve(name);
  return work.feature(name);
}

/** The feature's repository (an RPC target of its object). */
async function repoOf(c: AppContext, name: string) {
  return (await featureOf(c, name)).repo(c.get("project"));
}

/**
 * Plan writes and task syncs are the orchestrating agent's: over the API a person asks the agent to
 * do it, as a manual call of its own tool (the agent's gates, approvals and trace apply).
 */
async function asOrchestrator(
  c: AppContext,
  feature: string,
  tool: "plan.write" | "tasks.sync",
  args: Record<string, unknown>,
) {
  const summary = await call((await featureOf(c, feature)).summary());
  const agent = await agentStub(c.env, c.get("project"), summary.orchestrator);
  const outcome = await call(agent.invokeTool(tool, { feature, ...args }, runPrincipal(c)));
  if (outcome.status === "waiting_approval") return c.json({ orchestrator: summary.orchestrator, ...outcome }, 202);
  if (!("ok" in outcome) || !outcome.ok) {
    const message =
      "error" in outcome
        ? outcome.error.message
        : `the orchestrating agent '${summary.orchestrator}' did not ${tool === "plan.write" ? "write the plan" : "sync the tasks"}`;
    throw new PantheonError("tool_refused", message, {
      details: { orchestrator: summary.orchestrator, tool, runId: outcome.runId },
    });
  }
  return c.json({
    orchestrator: summary.orchestrator,
    runId: outcome.runId,
    result: JSON.parse(outcome.output) as unknown,
  });
}

/**
 * Features, plans and tasks (core/work, durable-objects/feature): a person reads, comments,
 * approves, answers, starts, commits and discards; the orchestrating agent writes plans and syncs.
 */
export const featureRoutes = new Hono<AppEnv>()
  .get("/", scope("chat"), async (c) => {
    const work = workOf(c);
    const index = await work.list();
    const features = await Promise.all(index.map(async (f) => call(work.feature(f.name).summary())));
    return c.json({ features });
  })
  .post("/", scope("admin"), valid("json", featureCreateSchema), async (c) =>
    c.json(await workOf(c).create(c.req.valid("json")), 201),
  )
  // Reading a feature, its plan, tasks, files and repository and commenting is talking (chat); starting,
  // committing, discarding, creating and deleting are the operator's (admin); deciding is approve.
  // The summary carries the repository's clone URL (workers/git-http.ts serves it to a chat token of the project).
  .get("/:feature", scope("chat"), valid("param", featureParam), async (c) => {
    const { feature } = c.req.valid("param");
    const summary = await call((await featureOf(c, feature)).summary());
    return c.json({ ...summary, cloneUrl: cloneUrlOf(c, feature) });
  })
  .patch("/:feature", scope("admin"), valid("param", featureParam), valid("json", featurePatchSchema), async (c) => {
    const { feature } = c.req.valid("param");
    const updated = await call((await featureOf(c, feature)).update(c.req.valid("json")));
    if (c.req.valid("json").title) await workOf(c).reindex(feature, updated);
    return c.json(updated);
  })
  .delete("/:feature", scope("admin"), valid("param", featureParam), async (c) => {
    await workOf(c).remove(c.req.valid("param").feature);
    return c.body(null, 204);
  })
  .get("/:feature/plan", scope("chat"), valid("param", featureParam), valid("query", versionQuery), async (c) =>
    c.json(await call((await featureOf(c, c.req.valid("param").feature)).readPlan(c.req.valid("query").version))),
  )
  .put("/:feature/plan", scope("admin"), valid("param", featureParam), valid("json", planWriteSchema), async (c) =>
    asOrchestrator(c, c.req.valid("param").feature, "plan.write", { markdown: c.req.valid("json").markdown }),
  )
  .post(
    "/:feature/plan/comments",
    scope("chat"),
    valid("param", featureParam),
    valid("json", planCommentSchema),
    async (c) =>
      c.json(
        await call((await featureOf(c, c.req.valid("param").feature)).comment(c.req.valid("json"), personOf(c))),
        201,
      ),
  )
  .post(
    "/:feature/plan/approve",
    scope("approve"),
    valid("param", featureParam),
    valid(
      "json",
      lazySchema(() => z.strictObject({ version: z.number().int().min(1).optional() }).default({})),
    ),
    async (c) =>
      c.json(
        await call(
          (await featureOf(c, c.req.valid("param").feature)).approve(c.req.valid("json").version, personOf(c)),
        ),
      ),
  )
  .post("/:feature/tasks/sync", scope("admin"), valid("param", featureParam), async (c) =>
    asOrchestrator(c, c.req.valid("param").feature, "tasks.sync", {}),
  )
  .get("/:feature/tasks", scope("chat"), valid("param", featureParam), async (c) => {
    const work = workOf(c);
    const { feature } = c.req.valid("param");
    await work.resolve(feature);
    return c.json({ tasks: await call(work.feature(feature).tasks(work.lookup)) });
  })
  .get("/:feature/tasks/:task", scope("chat"), valid("param", taskParam), async (c) =>
    c.json(await call((await featureOf(c, c.req.valid("param").feature)).taskDetail(c.req.valid("param").task))),
  )
  .post("/:feature/tasks/:task/start", scope("admin"), valid("param", taskParam), async (c) => {
    const { feature, task } = c.req.valid("param");
    await workOf(c).resolve(feature);
    return c.json(await workOf(c).startTask(feature, task, personOf(c)), 202);
  })
  .post(
    "/:feature/tasks/:task/answer",
    scope("approve"),
    valid("param", taskParam),
    valid("json", answerSchema),
    async (c) => {
      const { feature, task } = c.req.valid("param");
      await workOf(c).resolve(feature);
      return c.json(await workOf(c).answer(feature, task, c.req.valid("json").answer, personOf(c)));
    },
  )
  .post(
    "/:feature/tasks/:task/commit",
    scope("admin"),
    valid("param", taskParam),
    valid("json", commitBody),
    async (c) => {
      const { feature, task } = c.req.valid("param");
      const body = c.req.valid("json");
      const f = await featureOf(c, feature);
      // A client that retries sends the same key, so its commit is applied once.
      const key = body.key ?? c.req.header("idempotency-key") ?? crypto.randomUUID();
      return c.json(
        await call(
          f.commitTask(
            {
              task,
              key,
              ...(body.summary ? { summary: body.summary } : {}),
              ...(body.status ? { status: body.status } : {}),
            },
            personOf(c),
          ),
        ),
      );
    },
  )
  .post("/:feature/tasks/:task/discard", scope("admin"), valid("param", taskParam), async (c) => {
    const { feature, task } = c.req.valid("param");
    await workOf(c).resolve(feature);
    return c.json(await workOf(c).discard(feature, task, personOf(c)));
  })
  .get("/:feature/files", scope("chat"), valid("param", featureParam), valid("query", filesQuery), async (c) => {
    const q = c.req.valid("query");
    const files = await call(
      (await featureOf(c, c.req.valid("param").feature)).listFiles({
        ...(q.task ? { task: q.task } : {}),
        ...(q.ref ? { ref: q.ref } : {}),
        ...(q.prefix ? { prefix: q.prefix } : {}),
      }),
    );
    return c.json({ files });
  })
  .get("/:feature/files/content", scope("chat"), valid("param", featureParam), valid("query", fileQuery), async (c) => {
    const q = c.req.valid("query");
    return c.json(
      await call(
        (await featureOf(c, c.req.valid("param").feature)).readFile({
          path: q.path,
          ...(q.task ? { task: q.task } : {}),
          ...(q.ref ? { ref: q.ref } : {}),
        }),
      ),
    );
  })
  .get("/:feature/report", scope("chat"), valid("param", featureParam), async (c) => {
    const { feature } = c.req.valid("param");
    await workOf(c).resolve(feature);
    return c.json(await workOf(c).report(feature));
  })
  // The feature's git repository (durable-objects/feature/repo): history, branches, diffs, a person's
  // resolution of a conflict, and the ways the work leaves (push, pull request, download).
  .get("/:feature/commits", scope("chat"), valid("param", featureParam), valid("query", commitsQuery), async (c) => {
    const q = c.req.valid("query");
    return c.json(await call((await repoOf(c, c.req.valid("param").feature)).commits(q.ref, q.limit)));
  })
  .get("/:feature/commits/:sha/diff", scope("chat"), valid("param", shaParam), async (c) =>
    c.json(await call((await repoOf(c, c.req.valid("param").feature)).diff(c.req.valid("param").sha))),
  )
  .get("/:feature/branches", scope("chat"), valid("param", featureParam), async (c) =>
    c.json(await call((await repoOf(c, c.req.valid("param").feature)).branches())),
  )
  .post(
    "/:feature/tasks/:task/resolve",
    scope("admin"),
    valid("param", taskParam),
    valid("json", resolveBody),
    async (c) => {
      const { feature, task } = c.req.valid("param");
      const body = c.req.valid("json");
      const key = body.key ?? c.req.header("idempotency-key") ?? crypto.randomUUID();
      return c.json(
        await call(
          (await repoOf(c, feature)).resolve(
            task,
            { files: body.files, key, ...(body.summary ? { summary: body.summary } : {}) },
            personOf(c),
          ),
        ),
      );
    },
  )
  .post("/:feature/push", scope("admin"), valid("param", featureParam), valid("json", pushBody), async (c) =>
    c.json(await call((await repoOf(c, c.req.valid("param").feature)).push(c.req.valid("json")))),
  )
  .post("/:feature/pr", scope("admin"), valid("param", featureParam), valid("json", prBody), async (c) => {
    const { feature } = c.req.valid("param");
    const body = c.req.valid("json");
    const summary = await call((await featureOf(c, feature)).summary());
    const title = body.title ?? summary.title;
    const report = await workOf(c).report(feature);
    return c.json(
      await call(
        (await repoOf(c, feature)).pullRequest({
          title,
          body: pullRequestBody(report, title),
          ...(body.base ? { base: body.base } : {}),
          ...(body.head ? { head: body.head } : {}),
          ...(body.tokenSecret ? { tokenSecret: body.tokenSecret } : {}),
          // The project's forge (PUT /api/projects/:slug/forge), else the deployment's GitHub.
          forge: await registryStub(c.env, c.get("project")).forgeGet(),
        }),
      ),
      201,
    );
  })
  .get("/:feature/download", scope("chat"), valid("param", featureParam), valid("query", downloadQuery), async (c) => {
    const out = await call((await repoOf(c, c.req.valid("param").feature)).download(c.req.valid("query").format));
    return c.body(new Uint8Array(out.bytes), 200, {
      "content-type": out.contentType,
      "content-disposition": `attachment; filename="${out.filename}"`,
    });
  })
  .get("/:feature/report.md", scope("chat"), valid("param", featureParam), async (c) => {
    const { feature } = c.req.valid("param");
    const work = workOf(c);
    await work.resolve(feature);
    return markdown(c, await call(work.feature(feature).reportMarkdown(work.lookup, new URL(c.req.url).origin)));
  })
  .get("/:feature/tasks/:task/report.md", scope("chat"), valid("param", taskParam), async (c) => {
    const { feature, task } = c.req.valid("param");
    const work = workOf(c);
    await work.resolve(feature);
    return markdown(c, await call(work.feature(feature).taskReport(task, work.lookup, new URL(c.req.url).origin)));
  })
  .get(
    "/:feature/plan/analysis",
    scope("chat"),
    valid("param", featureParam),
    valid("query", versionQuery),
    async (c) => {
      const plan = await call(
        (await featureOf(c, c.req.valid("param").feature)).readPlan(c.req.valid("query").version),
      );
      return c.json({ version: plan.version, ...plan.analysis });
    },
  )
  // Run-all and the pause switch (durable-objects/feature/runner.ts).
  .post("/:feature/run-all", scope("admin"), valid("param", featureParam), async (c) => {
    const { feature } = c.req.valid("param");
    await workOf(c).resolve(feature);
    const started = await workOf(c).runAll(feature, personOf(c));
    return c.json({ ...started, started: started.next ? [started.next] : [] }, 202);
  })
  // The pause switch is a person's brake: whoever may decide approvals may pull it and release it.
  .post("/:feature/pause", scope("approve"), valid("param", featureParam), async (c) => {
    const { feature } = c.req.valid("param");
    await workOf(c).resolve(feature);
    return c.json(await workOf(c).pause(feature, personOf(c)));
  })
  .post("/:feature/resume", scope("approve"), valid("param", featureParam), async (c) => {
    const { feature } = c.req.valid("param");
    await workOf(c).resolve(feature);
    return c.json(await workOf(c).resume(feature, personOf(c)));
  })
  // Clarify: the planner's questions before it writes the plan, answered only as answers.
  .get("/:feature/questions", scope("chat"), valid("param", featureParam), async (c) =>
    c.json(await call((await featureOf(c, c.req.valid("param").feature)).questionList(false))),
  )
  .post(
    "/:feature/questions/:id/answer",
    scope("approve"),
    valid("param", questionParam),
    valid("json", answerSchema),
    async (c) => {
      const { feature, id } = c.req.valid("param");
      const work = workOf(c);
      await work.resolve(feature);
      const answered = await work.answerQuestion(feature, id, c.req.valid("json").answer, personOf(c), runPrincipal(c));
      // The orchestrator's turn with the answer goes on after the response (it may take a while).
      if (answered.turn)
        c.executionCtx.waitUntil(
          answered.turn
            .then((r) => (r.ok ? undefined : console.error("work: the orchestrator's turn with an answer", r.message)))
            .catch((error: unknown) => console.error("work: answer turn", error)),
        );
      return c.json({ question: answered.question, orchestrator: answered.orchestrator, told: answered.turn !== null });
    },
  );

/** Where plain git clones the feature from: `/git/<project>/<feature>.git` on this server. */
const cloneUrlOf = (c: AppContext, feature: string) =>
  `${new URL(c.req.url).origin}/git/${encodeURIComponent(c.get("project"))}/${encodeURIComponent(feature)}.git`;

/** A report as markdown (text/markdown; a browser shows it, `curl` saves it). */
const markdown = (c: AppContext, text: string) => c.body(text, 200, { "content-type": "text/markdown; charset=utf-8" });
