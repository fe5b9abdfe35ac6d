import { runPrincipal } from "../auth";
import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import {
  agentExportFormats,
  agentImportFormats,
  assertRuntimeOutbound,
  defaultAgentRuntime,
  fromAgentConfig,
  partWarning,
  profileFromScript,
  toAnthropicAgentConfig,
  toOpenAIAgentConfig,
  withImportedTools,
  agentNameSchema,
  type JsonValue,
} from "../../core/agents";
import { compileScript } from "../../core/dsl";
import { PantheonError } from "../../core/errors";
import { defaultModelFrom } from "../../core/models";
import { modelSettingsSchema } from "../../core/run/limits";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { contextToolNames } from "../../durable-objects/agent/memory/context-tools";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { projectOutbound } from "../project-secrets";
import { valid } from "../validation";
import { exportRedactor } from "../export-redaction";
import { nameParam, pushProfile } from "./agents";
import { everyAgentsTools } from "./scripts";

const exportQuery = lazySchema(() =>
  z.object({ format: z.enum(agentExportFormats, { error: "one of openai, anthropic, opencode" }) }),
);
const importQuery = lazySchema(() =>
  z.object({ format: z.enum(agentImportFormats, { error: "one of openai, anthropic, opencode" }) }),
);
/** `config`: the format's JSON, or for OpenCode the agent file's text (or what `export` answers as JSON). */
const importBody = lazySchema(() =>
  z.strictObject({
    name: agentNameSchema,
    config: z.union(
      [z.record(z.string(), z.unknown()), z.string().max(48_000, "an agent file of at most 48,000 characters")],
      { error: "the configuration: a JSON object, or for opencode the agent file's text" },
    ),
  }),
);

/** The OpenCode format, loaded when a request asks for it (it brings the YAML library; see core/agents/index.ts). */
const openCode = () => import("../../core/agents/opencode");

/** What an import reads from the body, whatever the format: the script's source, its prompt, tools and approvals, and what was left out. */
async function readImport(
  format: (typeof agentImportFormats)[number],
  name: string,
  sent: string | Record<string, unknown>,
  env: Env,
) {
  const refused = (issues: { path: string; message: string }[]) =>
    new PantheonError(
      "validation_failed",
      `the ${format} configuration cannot be imported: ${issues[0]!.path}: ${issues[0]!.message}`,
      { details: { issues } },
    );
  // What `export` answers as JSON (`{ format, config | file, warnings }`) is accepted as it is.
  const exported = typeof sent === "object" && typeof sent.format === "string" ? sent : undefined;
  if (format === "opencode") {
    const file = typeof sent === "string" ? sent : typeof exported?.file === "string" ? exported.file : undefined;
    if (file === undefined)
      throw refused([
        { path: "$.config", message: "the OpenCode agent file's text (markdown with YAML front matter), as a string" },
      ]);
    const defaultModel = modelSettingsSchema.parse(defaultModelFrom(env.PANTHEON_DEFAULT_PROVIDER));
    const read = (await openCode()).fromOpenCodeAgentFile(name, file, new Set(everyAgentsTools), defaultModel);
    if (!read.ok) throw refused(read.issues);
    return { ...read.value, tools: [] };
  }
  if (typeof sent === "string")
    throw refused([{ path: "$.config", message: `a JSON object (the ${format} configuration), not text` }]);
  const config = exported?.config && typeof exported.config === "object" ? exported.config : sent;
  const read = fromAgentConfig(format, name, config);
  if (!read.ok) throw refused(read.issues);
  return { ...read.value, approvalRequired: [] as string[] };
}

/**
 * An agent in and out of other systems' formats: `GET /api/agents/:name/export?format=openai|anthropic|opencode`
 * and `POST /api/agents/import?format=openai|anthropic|opencode` `{ name, config }` (a new agent defined by a
 * script; for opencode `config` is the file's text). Every part a format cannot hold is a warning, both ways.
 */
export const agentInteropRoutes = new Hono<AppEnv>()
  .post("/import", scope("admin"), valid("query", importQuery), valid("json", importBody), async (c) => {
    const project = c.get("project");
    const { format } = c.req.valid("query");
    const { name, config } = c.req.valid("json");
    const read = await readImport(format, name, config, c.env);
    const { script } = compileScript(read.source);
    const derived = profileFromScript(script, defaultAgentRuntime);
    const merged = withImportedTools(
      { ...derived.runtime, approvalRequired: read.approvalRequired },
      read.tools,
      new Set(everyAgentsTools),
    );
    if (merged.issues.length)
      throw new PantheonError(
        "validation_failed",
        `the ${format} configuration cannot be imported: ${merged.issues[0]!.path}: ${merged.issues[0]!.message}`,
        { details: { issues: merged.issues } },
      );
    // Checked before anything is stored: an HTTP tool's endpoint must pass the outbound guard.
    assertRuntimeOutbound(merged.runtime, await projectOutbound(c.env, c.get("project"), merged.runtime));
    const registry = registryStub(c.env, project);
    const { connections: _, ...input } = derived;
    await call(
      registry.createAgent({
        name,
        ...input,
        runtime: merged.runtime,
        ...(read.systemPrompt !== null ? { systemPrompt: read.systemPrompt } : {}),
      }),
    );
    const profile = await call(
      registry.updateAgent(name, {
        script: JSON.parse(JSON.stringify(script)) as JsonValue,
        scriptSource: read.source,
        configuredBy: runPrincipal(c),
      }),
    );
    await pushProfile(c.env, project, profile);
    return c.json(
      {
        agent: profile,
        script: { source: read.source, format: "pantheon" as const },
        warnings: [...read.warnings, ...merged.warnings],
      },
      201,
    );
  })
  .get("/:name/export", scope("admin"), valid("param", nameParam), valid("query", exportQuery), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const { format } = c.req.valid("query");
    const registry = registryStub(c.env, project);
    const [found, file] = await Promise.all([call(registry.getAgent(name)), registry.exportProjectFile()]);
    // The display name a project file gave it (its entry's `name` is the agent's own name without one):
    // no format holds it, so each names it in a warning (core/agents/definition.ts, entryFields).
    const shownAs = file.agents[name]?.name;
    const profile = { ...found, displayName: shownAs !== undefined && shownAs !== name ? shownAs : null };
    const all = await call((await agentStub(c.env, project, name)).listTools());
    // Delegation (`ask_<agent>`) and the context tools (offered because of sources and connections) are
    // Pantheon's own wiring between its agents: no other system can call them; the warnings name both parts.
    const specs = all.filter((t) => t.runtime !== "agent" && !contextToolNames.includes(t.name));
    const delegation = partWarning(
      "connections",
      all.filter((t) => t.runtime === "agent").map((t) => t.name),
      "$.tools",
      "the ask_<agent> tools are delegation inside Pantheon (to its own agents, or A2A agents it was given): no other system can call them",
    );
    if (format === "opencode") {
      const askedBy = (await registry.dependentsOf(name)).length > 0;
      const file = (await openCode()).toOpenCodeAgentFile(profile, specs, askedBy);
      const warnings = [...delegation, ...file.warnings];
      const text = exportRedactor(c.env).redact(file.text);
      // JSON for a client that asks for it (the CLI: the file, and the warnings for stderr); else the file itself.
      if ((c.req.header("accept") ?? "").includes("application/json"))
        return c.json({ format, file: text, warnings }, 200);
      return c.body(text, 200, {
        "content-type": "text/markdown; charset=utf-8",
        "content-disposition": `attachment; filename="${name}.md"`,
        "x-pantheon-warnings": encodeURIComponent(JSON.stringify(warnings)),
      });
    }
    const out = format === "openai" ? toOpenAIAgentConfig(profile, specs) : toAnthropicAgentConfig(profile, specs);
    return c.json(
      {
        format,
        config: exportRedactor(c.env).redactDeep(out.config as unknown as JsonValue),
        warnings: [...out.warnings, ...delegation],
      },
      200,
    );
  });
