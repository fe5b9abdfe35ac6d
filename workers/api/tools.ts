import { runPrincipal } from "../auth";
import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { agentNameSchema, assertRuntimeOutbound, withImportedTools } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { exportTools, importTools, toolFormats, toolNamePattern } from "../../core/tools";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { projectOutbound } from "../project-secrets";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam, pushProfile } from "./agents";

const toolParam = lazySchema(() =>
  z.object({ name: agentNameSchema, tool: z.string().regex(toolNamePattern, "a tool name") }),
);
const formatQuery = lazySchema(() =>
  z.object({ format: z.enum(toolFormats, { error: "one of mcp, openai, anthropic" }).optional() }),
);
const importBody = lazySchema(() =>
  z.strictObject({ format: z.enum(toolFormats, { error: "one of mcp, openai, anthropic" }), tools: z.unknown() }),
);

export const toolRoutes = new Hono<AppEnv>()
  /**
   * The agent's tools: Pantheon's own ToolSpecs, or with `?format=mcp|openai|anthropic` in that
   * format, with a warning for each field the format cannot hold.
   */
  .get("/:name/tools", scope("chat"), valid("param", nameParam), valid("query", formatQuery), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    const specs = await call(agent.listTools());
    const { format } = c.req.valid("query");
    if (!format) return c.json({ tools: specs });
    const { tools, warnings } = exportTools(specs, format);
    // Sent untyped on purpose: typed, this shape would merge with the ToolSpec list above into one
    // union for every client (`hc`), though a client only gets it by asking for a format.
    return c.body(JSON.stringify({ format, tools, warnings }), 200, { "content-type": "application/json" });
  })
  /**
   * Tools from elsewhere (an MCP `tools/list` result, OpenAI function tools, Anthropic tools): one
   * with an `endpoint` becomes an HTTP tool (its host must be in the agent's allowHosts), any other
   * is declared by name with a warning. A list that cannot be read is refused whole, each problem at its path.
   */
  .post("/:name/tools/import", scope("admin"), valid("param", nameParam), valid("json", importBody), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const { format, tools } = c.req.valid("json");
    const profile = await call(registryStub(c.env, project).getAgent(name));
    const read = importTools(format, tools, "$.tools");
    if (!read.ok)
      throw new PantheonError(
        "validation_failed",
        `the tools cannot be imported: ${read.issues[0]!.path}: ${read.issues[0]!.message}`,
        { details: { issues: read.issues } },
      );
    const provided = new Set((await call((await agentStub(c.env, project, name)).listTools())).map((t) => t.name));
    const merged = withImportedTools(profile.runtime, read.tools, provided);
    if (merged.issues.length)
      throw new PantheonError(
        "validation_failed",
        `the tools cannot be imported: ${merged.issues[0]!.path}: ${merged.issues[0]!.message}`,
        { details: { issues: merged.issues } },
      );
    if (merged.runtime.httpTools.length > 50 || merged.runtime.tools.length > 100)
      throw new PantheonError("validation_failed", "an agent has at most 50 HTTP tools and 100 declared tools", {
        details: { issues: [{ path: "$.tools", message: "too many tools for one agent" }] },
      });
    // An HTTP tool's endpoint passes the outbound guard with the agent's allowlist, as on PATCH.
    assertRuntimeOutbound(merged.runtime, await projectOutbound(c.env, c.get("project"), merged.runtime));
    const updated = await call(registryStub(c.env, project).updateAgent(name, { runtime: merged.runtime }));
    await pushProfile(c.env, project, updated);
    return c.json({ imported: merged.imported, warnings: [...read.warnings, ...merged.warnings] }, 200);
  })
  /**
   * A person calls a tool by hand: a traced run (trigger `manual`) through every gate. 200 with the
   * output (or the tool's error), 202 while it waits (a pending approval, or another agent's answer),
   * 422 when a gate refused it.
   */
  .post(
    "/:name/tools/:tool/invoke",
    scope("admin"),
    valid("param", toolParam),
    valid(
      "json",
      lazySchema(() => z.strictObject({ arguments: z.record(z.string(), z.unknown()).default({}) })),
    ),
    async (c) => {
      const { name, tool } = c.req.valid("param");
      const agent = await agentStub(c.env, c.get("project"), name);
      const result = await call(agent.invokeTool(tool, c.req.valid("json").arguments, runPrincipal(c)));
      return "pending" in result || "waiting" in result ? c.json(result, 202) : c.json(result, 200);
    },
  );
