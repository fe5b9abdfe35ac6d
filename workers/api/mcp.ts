import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { agentNameSchema } from "../../core/agents";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";

export const serverName = lazySchema(() =>
  z
    .string()
    .regex(
      /^[a-z][a-z0-9_-]{0,31}$/,
      "lowercase letters, digits, '-' or '_', starting with a letter, at most 32 (it prefixes the server's tool names)",
    ),
);
export const serverUrl = lazySchema(() =>
  z
    .string()
    .max(2048, "at most 2048 characters")
    .refine((value) => {
      try {
        const { protocol } = new URL(value);
        return protocol === "http:" || protocol === "https:";
      } catch {
        return false;
      }
    }, "an http:// or https:// URL of an MCP server"),
);
/** Headers an MCP server must not be given: the transport's own, and what the platform sets. */
const reservedHeaders = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);
export const serverHeaders = lazySchema(() =>
  z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9-]{1,64}$/, "a header name: letters, digits and '-', at most 64")
        .refine((name) => !reservedHeaders.has(name.toLowerCase()), "a header the MCP transport sets itself"),
      z.union([
        z.string().max(1024, "at most 1024 characters"),
        z.strictObject({
          secret: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "an UPPER_SNAKE secret name of the project"),
          prefix: z.string().max(32, "at most 32 characters, e.g. 'Bearer '").optional(),
        }),
      ]),
    )
    .refine((headers) => Object.keys(headers).length <= 16, "at most 16 headers"),
);
const serverParam = lazySchema(() => z.object({ name: agentNameSchema, id: serverName }));
const questionParam = lazySchema(() =>
  z.object({ name: agentNameSchema, question: z.string().uuid("a question's id, as GET …/mcp/questions lists it") }),
);
/** A person's answer to a server's question: the MCP spec's ElicitResult (accept carries the form's values). */
const answerBody = lazySchema(() =>
  z
    .strictObject({
      action: z.enum(["accept", "decline", "cancel"], { error: "one of 'accept', 'decline' or 'cancel'" }),
      content: z
        .record(
          z.string().max(64),
          z.union([z.string().max(4096), z.number(), z.boolean(), z.array(z.string().max(256)).max(64)]),
        )
        .optional(),
    })
    .refine((answer) => answer.action !== "accept" || answer.content !== undefined, {
      path: ["content"],
      message: "an accepted answer carries the form's values (an object of strings, numbers, booleans or string lists)",
    }),
);

/**
 * An agent's MCP servers (Streamable HTTP, SSE fallback). Their tools join the agent's tools as
 * `<server>.<tool>`, through the same gates as every tool. The URL passes the outbound guard in
 * the agent's object, which knows its allowlist (400 naming `url` and why), and so does every
 * request the MCP client sends afterwards (durable-objects/agent/mcp/servers.ts). `headers` go with
 * every request: literal values, or `{ secret, prefix? }` naming a project secret, whose value is read
 * at each request and never stored with the server, listed or traced (mcp/credentials.ts).
 * @example
 * POST /api/agents/helper/mcp { "name": "calc", "url": "https://mcp.example.com/mcp" }
 * // 201 { id: "calc", name: "calc", url, state: "ready", tools: [{ name: "calc.add", mcpName: "add", ... }], headers: {} }
 * POST /api/agents/helper/mcp { "name": "gh", "url": "https://api.githubcopilot.com/mcp/",
 *   "headers": { "Authorization": { "secret": "GITHUB_TOKEN", "prefix": "Bearer " } } }
 */
export const mcpRoutes = new Hono<AppEnv>()
  .get("/:name/mcp", scope("admin"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ servers: await call(agent.listMcpServers()) });
  })
  .post(
    "/:name/mcp",
    scope("admin"),
    valid("param", nameParam),
    valid(
      "json",
      lazySchema(() =>
        z.strictObject({
          name: serverName,
          url: serverUrl,
          transport: z
            .enum(["auto", "streamable-http", "sse"], { error: "one of 'auto', 'streamable-http' or 'sse'" })
            .optional(),
          headers: serverHeaders.optional(),
        }),
      ),
    ),
    async (c) => {
      const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
      const { name, url, transport, headers } = c.req.valid("json");
      return c.json(
        await call(
          agent.connectMcpServer(name, url, {
            ...(transport ? { transport } : {}),
            ...(headers ? { headers } : {}),
            // A server that wants OAuth sends the person back to this origin (./mcp-oauth.ts).
            callbackOrigin: new URL(c.req.url).origin,
          }),
        ),
        201,
      );
    },
  )
  // A server's question while its tool runs (elicitation/create): a person who may approve answers it.
  .get("/:name/mcp/questions", scope("approve"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ questions: await call(agent.listMcpQuestions()) });
  })
  .post(
    "/:name/mcp/questions/:question",
    scope("approve"),
    valid("param", questionParam),
    valid("json", answerBody),
    async (c) => {
      const { name, question } = c.req.valid("param");
      const { action, content } = c.req.valid("json");
      const agent = await agentStub(c.env, c.get("project"), name);
      await call(
        agent.answerMcpQuestion(question, action === "accept" ? { action, content: content ?? {} } : { action }),
      );
      return c.body(null, 204);
    },
  )
  .delete("/:name/mcp/:id", scope("admin"), valid("param", serverParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    await call(agent.disconnectMcpServer(id));
    return c.body(null, 204);
  });
