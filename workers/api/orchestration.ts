import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema } from "../../core/agents";
import { fanOutSpecSchema, type FanOutSpec } from "../../core/bus";
import { lazySchema } from "../../core/lazy-schema";
import { workflowSchema, type Workflow } from "../../core/workflows";
import { agentStub, call } from "../../durable-objects/stubs";
import type { FanOutView, WorkflowView } from "../../durable-objects/agent/workflows";
import { runPrincipal } from "../auth";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { parseOrThrow, valid } from "../validation";
import { nameParam } from "./agents";

const idSchema = () => z.string().regex(/^[\w.:-]{1,128}$/, "1 to 128 letters, digits, '_', '.', ':' or '-'");
const itemParam = lazySchema(() => z.object({ name: agentNameSchema, id: idSchema() }));
const fanOutBody = lazySchema(() => z.intersection(fanOutSpecSchema, z.object({ id: idSchema().optional() })));
const startWorkflowBody = lazySchema(() =>
  z.strictObject({
    /** A workflow of the agent's script by name, or a whole graph (checked below, so its issues keep their paths). */
    workflow: z.union(
      [z.string().min(1, "a workflow name, or a graph { name, steps }").max(63), z.record(z.string(), z.unknown())],
      { error: "a workflow name, or a graph { name, steps }" },
    ),
    input: z.string().max(32_000, "at most 32,000 characters").default(""),
    id: idSchema().optional(),
  }),
);

/**
 * Fan-outs and workflows of one agent. A fan-out asks the agent's connections one question under a
 * policy; a workflow runs a graph of steps. Both answer at once (202) with their state, which GET
 * reads until it is decided or finished: they outlive a request, and an eviction.
 */
export const orchestrationRoutes = new Hono<AppEnv>()
  // A fan-out asks the agent's connections, as a chat's model could (chat); starting a workflow runs
  // the agent's tools as steps (admin).
  .post("/:name/fanouts", scope("chat"), valid("param", nameParam), valid("json", fanOutBody), async (c) => {
    const { id, ...spec } = c.req.valid("json") as FanOutSpec & { id?: string };
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(
      (await call(
        agent.orchestrate({ op: "fanout.start", spec: { ...spec, principal: runPrincipal(c) }, ...(id ? { id } : {}) }),
      )) as FanOutView,
      202,
    );
  })
  .get("/:name/fanouts/:id", scope("chat"), valid("param", itemParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json((await call(agent.orchestrate({ op: "fanout.get", id }))) as FanOutView);
  })
  .get("/:name/workflows", scope("chat"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ workflows: (await call(agent.orchestrate({ op: "workflow.list" }))) as Workflow[] });
  })
  .post("/:name/workflows", scope("admin"), valid("param", nameParam), valid("json", startWorkflowBody), async (c) => {
    const body = c.req.valid("json");
    // The graph's own issues, with their paths under `workflow` (a union would report only that it matched neither).
    const graph =
      typeof body.workflow === "string"
        ? body.workflow
        : parseOrThrow(z.object({ workflow: workflowSchema }), { workflow: body.workflow }, "workflow").workflow;
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    const started = await call(
      agent.orchestrate({
        op: "workflow.start",
        workflow: graph,
        input: body.input,
        ...(body.id ? { id: body.id } : {}),
        principal: runPrincipal(c),
      }),
    );
    return c.json(started as WorkflowView, 202);
  })
  .get("/:name/workflows/:id", scope("chat"), valid("param", itemParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json((await call(agent.orchestrate({ op: "workflow.get", id }))) as WorkflowView);
  });
