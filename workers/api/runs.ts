import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { agentNameSchema } from "../../core/agents";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call, featureStub, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";

export const runParam = lazySchema(() => z.object({ name: agentNameSchema, id: z.string().min(1).max(64) }));

const approvalBody = lazySchema(() =>
  z.strictObject({
    decision: z.enum(["approve", "reject"], { error: "either 'approve' or 'reject'" }),
    callId: z.string().min(1).max(128).optional(),
    reason: z.string().max(2000).optional(),
  }),
);

export const runRoutes = new Hono<AppEnv>()
  .get(
    "/:name/runs",
    scope("chat"),
    valid("param", nameParam),
    valid(
      "query",
      lazySchema(() => z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) })),
    ),
    async (c) => {
      const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
      return c.json({ runs: await call(agent.listRuns(c.req.valid("query").limit)) });
    },
  )
  .get("/:name/runs/:id", scope("chat"), valid("param", runParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json(await call(agent.getRun(id)));
  })
  .post("/:name/runs/:id/cancel", scope("chat"), valid("param", runParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json(await call(agent.cancelRun(id, c.get("principal"))));
  })
  /** Only an authenticated person reaches this route; the principal is recorded as the approver. */
  .post(
    "/:name/runs/:id/approval",
    scope("approve"),
    valid("param", runParam),
    valid("json", approvalBody),
    async (c) => {
      const { name, id } = c.req.valid("param");
      const body = c.req.valid("json");
      const agent = await agentStub(c.env, c.get("project"), name);
      // Approving lends the call the approver's rights: the agent checks they cover the tool's scope.
      const decision = {
        approved: body.decision === "approve",
        by: c.get("principal"),
        scope: c.get("scope"),
        ...(body.callId ? { callId: body.callId } : {}),
        ...(body.reason ? { reason: body.reason } : {}),
      };
      return c.json(await call(agent.decide(id, decision)));
    },
  );

/**
 * Every run of the project waiting for a person, every planner's question (clarify) and every MCP
 * server's question (`kind: "mcp_question"`, its form's JSON Schema in `requestedSchema`): the PWA's
 * inbox. A question (`kind: "question"`) names its feature (and task) and how to answer it.
 */
export const approvalRoutes = new Hono<AppEnv>().get("/", scope("approve"), async (c) => {
  const project = c.get("project");
  const registry = registryStub(c.env, project);
  const [agents, features] = await Promise.all([registry.listAgents(), registry.featureIndex()]);
  const lists = await Promise.all(
    agents.map(async (a) => {
      const stub = await agentStub(c.env, project, a.name);
      const [pending, asked] = await Promise.all([call(stub.pendingApprovals()), call(stub.listMcpQuestions())]);
      return [
        ...pending.map((p) => ({ agent: a.name, ...p })),
        // An MCP server's question while its tool runs (elicitation): answered with a form its schema describes.
        ...asked.map((q) => ({
          agent: a.name,
          kind: "mcp_question" as const,
          runId: q.runId ?? "",
          callId: q.id,
          tool: q.server,
          arguments: {},
          question: q.message,
          requestedSchema: q.requestedSchema,
          requestedAt: q.askedAt,
          expiresAt: q.expiresAt,
          approverScope: "approve" as const,
          answer: `POST /api/agents/${a.name}/mcp/questions/${q.id}`,
        })),
      ];
    }),
  );
  const questions = await Promise.all(
    features.map(async (f) => {
      const open = await featureStub(c.env, project, f.name).questionList(true);
      return open.ok
        ? open.value.questions.map((q) => ({
            agent: open.value.orchestrator,
            kind: "question" as const,
            feature: f.name,
            task: null,
            runId: q.runId ?? "",
            callId: q.id,
            tool: "plan.ask",
            arguments: { question: q.question },
            question: q.question,
            requestedAt: q.askedAt,
            approverScope: "approve" as const,
            answer: `pantheon plan answer ${f.name} ${q.id} "<answer>"`,
          }))
        : [];
    }),
  );
  return c.json({ approvals: [...lists.flat(), ...questions.flat()].sort((x, y) => x.requestedAt - y.requestedAt) });
});
