import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema, projectNameSchema } from "../../core/agents";
import { lazySchema } from "../../core/lazy-schema";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { valid } from "../validation";
import { handOut } from "./mcp-project";

const callbackParam = lazySchema(() => z.object({ project: projectNameSchema, agent: agentNameSchema }));
const projectCallbackParam = lazySchema(() => z.object({ project: projectNameSchema }));

/**
 * Where a person's browser comes back from an MCP server's OAuth consent page. No bearer token (a
 * browser redirect carries none): the credential is the `state` the agent issued when it started
 * the flow, which the agent's object checks and uses once (the SDK's DurableObjectOAuthClientProvider:
 * a state it did not issue, expired or already used is a 400 and changes nothing). On success the
 * browser goes on to the agent's tools page in the PWA.
 * @example
 * GET /api/oauth/mcp/default/helper/callback?code=…&state=<nonce>.<server>
 * // 302 Location: /#/agents/helper/tools?mcp=github
 */
export const mcpOAuthCallbackRoutes = new Hono<AppEnv>()
  .get("/api/oauth/mcp/:project/:agent/callback", valid("param", callbackParam), async (c) => {
    const { project, agent } = c.req.valid("param");
    const server = await call(agentStub(c.env, project, agent).completeMcpAuthorization(c.req.url));
    return c.redirect(`/#/agents/${encodeURIComponent(agent)}/tools?mcp=${encodeURIComponent(server.id)}`, 302);
  })
  // One of the project's servers, authorised for all its agents (durable-objects/registry/mcp-oauth.ts):
  // the registry checks and uses the state once; every agent connects the server before its next turn.
  .get("/api/oauth/mcp-project/:project/callback", valid("param", projectCallbackParam), async (c) => {
    const { project } = c.req.valid("param");
    const done = await call(registryStub(c.env, project).mcpOAuthComplete(c.req.url));
    await handOut(c.env, project, done.servers);
    return c.redirect(`/?project=${encodeURIComponent(project)}#/agents`, 302);
  });
