import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import {
  agentExportFormats,
  agentImportFormats,
  assertRuntimeOutbound,
  defaultAgentRuntime,
  fromAgentConfig,
  profileFromScript,
  toAnthropicAgentConfig,
  toOpenAIAgentConfig,
  toOpenCodeAgentFile,
  withImportedTools,
  agentNameSchema,
  type JsonValue,
} from "../../core/agents";
import { compileScript } from "../../core/dsl";
import { PantheonError } from "../../core/errors";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { projectOutbound } from "../project-secrets";
import { valid } from "../validation";
import { nameParam, pushProfile } from "./agents";
import { everyAgentsTools } from "./scripts";

const exportQuery = lazySchema(() => z.object({ format: z.enum(agentExportFormats, { error: "one of openai, anthropic, opencode" }) }));
const importQuery = lazySchema(() => z.object({ format: z.enum(agentImportFormats, { error: "one of openai, anthropic" }) }));
const importBody = lazySchema(() => z.strictObject({ name: agentNameSchema, config: z.record(z.string(), z.unknown()) }));

/**
 * An agent in and out of other systems' formats: `GET /api/agents/:name/export?format=openai|anthropic|opencode`
 * and `POST /api/agents/import?format=openai|anthropic` `{ name, config }` (a new agent defined by a script).
 */
export const agentInteropRoutes = new Hono<AppEnv>()
  .post("/import", valid("query", importQuery), valid("json", importBody), async (c) => {
    const project = c.get("project");
    const { format } = c.req.valid("query");
    const { name } = c.req.valid("json");
    // What `export` answers (`{ format, config, warnings }`) is accepted as it is.
    const sent = c.req.valid("json").config;
    const config = typeof sent.format === "string" && sent.config && typeof sent.config === "object" ? sent.config : sent;
    const read = fromAgentConfig(format, name, config);
    if (!read.ok) throw new PantheonError("validation_failed", `the ${format} configuration cannot be imported: ${read.issues[0]!.path}: ${read.issues[0]!.message}`, { details: { issues: read.issues } });
    const { script } = compileScript(read.value.source);
    const derived = profileFromScript(script, defaultAgentRuntime);
    const merged = withImportedTools(derived.runtime, read.value.tools, new Set(everyAgentsTools));
    if (merged.issues.length) throw new PantheonError("validation_failed", `the ${format} configuration cannot be imported: ${merged.issues[0]!.path}: ${merged.issues[0]!.message}`, { details: { issues: merged.issues } });
    // Checked before anything is stored: an HTTP tool's endpoint must pass the outbound guard.
    assertRuntimeOutbound(merged.runtime, await projectOutbound(c.env, c.get("project"), merged.runtime));
    const registry = registryStub(c.env, project);
    const { connections: _, ...input } = derived;
    await call(registry.createAgent({ name, ...input, runtime: merged.runtime, ...(read.value.systemPrompt !== null ? { systemPrompt: read.value.systemPrompt } : {}) }));
    const profile = await call(registry.updateAgent(name, { script: JSON.parse(JSON.stringify(script)) as JsonValue, scriptSource: read.value.source }));
    await pushProfile(c.env, project, profile);
    return c.json({ agent: profile, script: { source: read.value.source, format: "pantheon" as const }, warnings: [...read.value.warnings, ...merged.warnings] }, 201);
  })
  .get("/:name/export", valid("param", nameParam), valid("query", exportQuery), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const { format } = c.req.valid("query");
    const registry = registryStub(c.env, project);
    const profile = await call(registry.getAgent(name));
    const all = await call((await agentStub(c.env, project, name)).listTools());
    // Delegation (`ask_<agent>`) is Pantheon's own wiring between its agents: no other system can call it.
    const specs = all.filter((t) => t.runtime !== "agent");
    const delegation = all.length > specs.length ? [{ path: "$.tools", message: "the agent's ask_<agent> tools (delegation inside Pantheon) are left out" }] : [];
    if (format === "opencode") {
      const askedBy = (await registry.dependentsOf(name)).length > 0;
      const file = toOpenCodeAgentFile(profile, specs, askedBy);
      return c.body(file.text, 200, { "content-type": "text/markdown; charset=utf-8", "content-disposition": `attachment; filename="${name}.md"`, "x-pantheon-warnings": encodeURIComponent(JSON.stringify([...delegation, ...file.warnings])) });
    }
    const httpTools = specs.filter((t) => t.runtime === "http").map((t) => ({ path: "$.tools", message: `HTTP tool '${t.name}' goes out without its endpoint (the format has no place for it)` }));
    const out = format === "openai" ? toOpenAIAgentConfig(profile, specs) : toAnthropicAgentConfig(profile, specs);
    return c.json({ format, config: out.config as unknown as JsonValue, warnings: [...out.warnings, ...delegation, ...httpTools] }, 200);
  });
