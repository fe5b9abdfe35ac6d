import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { validationFailed, type FieldIssue } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import { builtinToolNames, toolSecretRefusal } from "../../core/tools";
import type { ProjectMcpServers } from "../../durable-objects/registry/mcp-server-store";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { projectOutbound } from "../project-secrets";
import { checkReach, projectRecord } from "../projects";
import { scope } from "../scopes";
import { valid } from "../validation";
import { serverHeaders, serverName, serverUrl } from "./mcp";

const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));
const serverParam = lazySchema(() => z.object({ slug: projectNameSchema, name: serverName }));
const declaration = lazySchema(() =>
  z.strictObject({
    name: serverName,
    url: serverUrl,
    transport: z
      .enum(["auto", "streamable-http", "sse"], { error: "one of 'auto', 'streamable-http' or 'sse'" })
      .optional(),
    headers: serverHeaders.optional(),
  }),
);

/** Every agent of the project is handed the new declarations: each connects them before its next turn. */
async function handOut(env: Env, slug: string, servers: ProjectMcpServers): Promise<void> {
  const agents = await registryStub(env, slug).listAgents();
  await Promise.allSettled(agents.map(async (a) => (await agentStub(env, slug, a.name)).projectMcpServers(servers)));
}

/**
 * A project's MCP servers, for all its agents (admin of that project, or the deployment admin):
 * `POST /:slug/mcp { name, url, transport?, headers? }` declares one (the same body as an agent's own,
 * POST /api/agents/:name/mcp), `GET` lists them, `DELETE /:slug/mcp/:name` removes one. The project
 * keeps the declaration only: a header's secret is named, its value read by each agent at each
 * request. Every agent of the project connects it before its next turn through its own outbound guard
 * (its host in the agent's runtime.allowHosts); an agent's own server of the same name wins.
 * @example
 * POST /api/projects/acme/mcp { "name": "docs", "url": "https://mcp.example.com/mcp",
 *   "headers": { "Authorization": { "secret": "DOCS_TOKEN", "prefix": "Bearer " } } }
 * // 201 { server: { name: "docs", url, headers }, version: 3 }
 */
export const mcpProjectRoutes = new Hono<AppEnv>()
  .get("/:slug/mcp", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const { servers, version } = await registryStub(c.env, slug).mcpServerList();
    return c.json({ servers, version });
  })
  .post("/:slug/mcp", scope("admin"), valid("param", slugOnly), valid("json", declaration), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const { name, url, transport, headers = {} } = c.req.valid("json");
    // A built-in tool's namespace is never a server's (its tools would pass for built-ins).
    if (["agent", "mcp", ...builtinToolNames().map((tool) => tool.split(".")[0]!)].includes(name)) {
      const message = `'${name}' is a built-in tool namespace; an MCP server may not take it`;
      throw validationFailed([{ path: ["name"], message }], message);
    }
    const issues: FieldIssue[] = [];
    const secrets = Object.entries(headers).filter(([, v]) => typeof v !== "string");
    if (secrets.length) {
      const { toolSecrets } = await projectOutbound(c.env, slug);
      for (const [header, value] of secrets) {
        const refusal = toolSecretRefusal((value as { secret: string }).secret, toolSecrets, slug, { list: false });
        if (refusal) issues.push({ path: ["headers", header, "secret"], message: refusal });
      }
    }
    if (issues.length) throw validationFailed(issues, issues[0]!.message);
    const server = { name, url: new URL(url).href, headers, ...(transport ? { transport } : {}) };
    const saved = await call(registryStub(c.env, slug).mcpServerPut(server));
    await handOut(c.env, slug, saved);
    return c.json({ server, version: saved.version }, 201);
  })
  .delete("/:slug/mcp/:name", scope("admin"), valid("param", serverParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const saved = await call(registryStub(c.env, slug).mcpServerDelete(name));
    await handOut(c.env, slug, saved);
    return c.body(null, 204);
  });
