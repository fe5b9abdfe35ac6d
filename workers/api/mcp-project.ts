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
    oauth: z.literal(true, { error: "true when the project authorises the server once by OAuth" }).optional(),
  }),
);

/**
 * The project's servers as listed: one authorised by OAuth says whether it is (never its token).
 * The listing route answers it; the doctor reads which need authorising again from it.
 */
export async function listProjectMcpServers(registry: ReturnType<typeof registryStub>) {
  const { servers, version } = await registry.mcpServerList();
  const listed = await Promise.all(
    servers.map(async (server) =>
      server.oauth ? { ...server, authorisation: await registry.mcpOAuthStatus(server.name) } : server,
    ),
  );
  return { servers: listed, version };
}

/** Every agent of the project is handed the new declarations: each connects them before its next turn. */
export async function handOut(env: Env, slug: string, servers: ProjectMcpServers): Promise<void> {
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
 * `oauth: true` has the project authorise it once by OAuth (durable-objects/registry/mcp-oauth.ts):
 * the answer carries the consent page an admin opens (`POST /:slug/mcp/:name/authorise` starts it
 * again), and every agent sends the project's token, which only the registry keeps.
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
    return c.json(await listProjectMcpServers(registryStub(c.env, slug)));
  })
  .post("/:slug/mcp", scope("admin"), valid("param", slugOnly), valid("json", declaration), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const { name, url, transport, headers = {}, oauth } = c.req.valid("json");
    // A built-in tool's namespace is never a server's (its tools would pass for built-ins).
    if (["agent", "mcp", ...builtinToolNames().map((tool) => tool.split(".")[0]!)].includes(name)) {
      const message = `'${name}' is a built-in tool namespace; an MCP server may not take it`;
      throw validationFailed([{ path: ["name"], message }], message);
    }
    const issues: FieldIssue[] = [];
    if (oauth && Object.keys(headers).some((header) => header.toLowerCase() === "authorization"))
      issues.push({
        path: ["headers", "Authorization"],
        message: "a server authorised by OAuth is sent the project's token; give no Authorization header with oauth",
      });
    const secrets = Object.entries(headers).filter(([, v]) => typeof v !== "string");
    if (secrets.length) {
      const { toolSecrets } = await projectOutbound(c.env, slug);
      for (const [header, value] of secrets) {
        const refusal = toolSecretRefusal((value as { secret: string }).secret, toolSecrets, slug, { list: false });
        if (refusal) issues.push({ path: ["headers", header, "secret"], message: refusal });
      }
    }
    if (issues.length) throw validationFailed(issues, issues[0]!.message);
    const server = {
      name,
      url: new URL(url).href,
      headers,
      ...(transport ? { transport } : {}),
      ...(oauth ? { oauth } : {}),
    };
    const registry = registryStub(c.env, slug);
    const saved = await call(registry.mcpServerPut(server));
    await handOut(c.env, slug, saved);
    // Authorised once for the project: the consent page an admin opens (PWA button, CLI URL), unless it already is.
    const authorisation = oauth
      ? await registry
          .mcpOAuthStatus(name)
          .then(async (now) =>
            now.state === "authorised" ? now : call(registry.mcpOAuthStart(name, new URL(c.req.url).origin)),
          )
      : undefined;
    return c.json({ server, version: saved.version, ...(authorisation ? { authorisation } : {}) }, 201);
  })
  // Authorises (again) a server the project authorises by OAuth: the consent page an admin opens.
  .post("/:slug/mcp/:name/authorise", scope("admin"), valid("param", serverParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    return c.json(await call(registryStub(c.env, slug).mcpOAuthStart(name, new URL(c.req.url).origin)));
  })
  .delete("/:slug/mcp/:name", scope("admin"), valid("param", serverParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const saved = await call(registryStub(c.env, slug).mcpServerDelete(name));
    await handOut(c.env, slug, saved);
    return c.body(null, 204);
  });
