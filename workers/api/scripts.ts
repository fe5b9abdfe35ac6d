import { runPrincipal } from "../auth";
import { Hono } from "hono";
import { profileFromScript, type AgentProfile, type JsonValue } from "../../core/agents";
import {
  compileScript,
  compileScriptJson,
  ScriptError,
  type ActorScript,
  type CompileOptions,
  type CompileResult,
} from "../../core/dsl";
import { isPantheonError, PantheonError } from "../../core/errors";
import { builtinGroupGrants, builtinToolNames } from "../../core/tools";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam, pushProfile } from "./agents";
import { compileToolForms, saveToolForms } from "./script-tools";

export const scriptMediaType = "text/x-pantheon";
export type ScriptFormat = "pantheon" | "json";

/** Built-in tools a script's `(tools …)` may name (the clock, http.fetch, the work tools): read from the catalog. */
const listedTools = builtinToolNames((group) => builtinGroupGrants[group] === "listed");

/**
 * Tools every agent has besides its configured ones (memory is every agent's; spawn comes with a
 * script's grant), what an import counts as provided. The work tools are not: they come with features.
 */
export const everyAgentsTools = builtinToolNames((group) => group !== "work");

/** A stored source is JSON when it is an object; DSL sources start with `(` or a `;` comment. */
const formatOf = (source: string): ScriptFormat => (source.trimStart().startsWith("{") ? "json" : "pantheon");

function compile(
  source: string,
  format: ScriptFormat,
  known: Pick<CompileOptions, "knownTools" | "knownAgents">,
): CompileResult {
  if (format === "pantheon") return compileScript(source, known);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new PantheonError(
      "bad_request",
      `the body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return compileScriptJson(value, known);
}

/** The script's actor must be the agent of the path; the issue points at the name in the source. */
function checkName(script: ActorScript, name: string, source: string, format: ScriptFormat): void {
  if (script.name === name) return;
  let line = 0;
  let column = 0;
  const at = format === "pantheon" ? /\(\s*actor\s+"/.exec(source) : null;
  if (at) {
    const before = source.slice(0, at.index + at[0].length - 1).split("\n");
    line = before.length;
    column = before[before.length - 1]!.length + 1;
  }
  throw new ScriptError([
    {
      line,
      column,
      form: format === "pantheon" ? "actor" : "name",
      expected: `"${name}" (the agent in the path)`,
      found: `"${script.name}"`,
      message: `the script defines actor '${script.name}' but is sent to agent '${name}'`,
    },
  ]);
}

async function existingAgent(env: Env, project: string, name: string): Promise<AgentProfile | null> {
  const found = await registryStub(env, project).getAgent(name);
  if (found.ok) return found.value;
  if (found.code === "not_found") return null;
  return call(found);
}

async function knownToolsOf(env: Env, project: string, profile: AgentProfile | null): Promise<Set<string>> {
  // The work tools (features, plans, tasks) exist for any agent that lists them.
  const known = new Set(listedTools);
  for (const tool of profile?.runtime.httpTools ?? []) known.add(tool.name);
  if (profile) {
    const listed = await (await agentStub(env, project, profile.name)).listTools();
    if (listed.ok) for (const spec of listed.value) known.add(spec.name);
  }
  return known;
}

/** The project's agent names: a script's connections may name only these (and not the agent itself). */
async function knownAgentsOf(env: Env, project: string): Promise<Set<string>> {
  return new Set((await registryStub(env, project).listAgents()).map((a) => a.name));
}

/**
 * What the agent is connected to from its script: like `PUT …/connections`, only other agents that
 * exist. The rest stays in the script as written and comes back as compile warnings.
 */
const usableConnections = (script: ActorScript, agents: ReadonlySet<string>) => [
  ...new Set(script.connections.filter((c) => c !== script.name && agents.has(c))),
];

/**
 * `PUT /api/agents/:name/script` (DSL as `text/x-pantheon`, or the ActorScript JSON) compiles the
 * script, stores it with its source, derives the agent's profile from it and re-arms its behaviors.
 * An agent that does not exist yet is created from the script. Connections to unknown agents or to
 * the agent itself are warnings and are left out of the agent's connections. `GET` returns the source, its
 * format, the compiled script and the current warnings.
 */
export const scriptRoutes = new Hono<AppEnv>()
  .put("/:name/script", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const format: ScriptFormat | null =
      type === scriptMediaType ? "pantheon" : type === "application/json" ? "json" : null;
    if (!format)
      throw new PantheonError(
        "unsupported_media_type",
        `send the script as '${scriptMediaType}' (the DSL) or 'application/json' (the ActorScript object)`,
      );
    const source = await c.req.text();
    const existing = await existingAgent(c.env, project, name);
    const knownAgents = await knownAgentsOf(c.env, project);
    // Compiled before anything is written: an invalid script leaves the previous one active.
    const { script, warnings, scriptTools } = compile(source, format, {
      knownTools: await knownToolsOf(c.env, project, existing),
      knownAgents,
    });
    checkName(script, name, source, format);
    // The project tools its (tool …) forms declare: all compiled before any is saved, and saved before
    // the agent, whose profile carries the tools it lists.
    const tools = scriptTools ? await compileToolForms(c.env, project, scriptTools) : [];
    await saveToolForms(c.env, project, tools, name);

    const registry = registryStub(c.env, project);
    const derived = {
      ...profileFromScript(script, existing?.runtime),
      connections: usableConnections(script, knownAgents),
    };
    // Its behaviors and schedules act for whoever set it.
    const stored = {
      script: JSON.parse(JSON.stringify(script)) as JsonValue,
      scriptSource: source,
      configuredBy: runPrincipal(c),
    };
    if (!existing) {
      const { connections, ...input } = derived;
      await call(registry.createAgent({ name, ...input, connections }));
    }
    const profile = await call(registry.updateAgent(name, { ...derived, ...stored }));
    // The agent indexes its own cron behaviors when it takes the profile (as a spawned child does).
    await pushProfile(c.env, project, profile);
    // As `PUT …/connections`: each agent added or dropped holds who may ask it and whom it shares with (`askedBy`).
    const before = existing?.connections ?? [];
    const changed = [
      ...before.filter((n) => !profile.connections.includes(n)),
      ...profile.connections.filter((n) => !before.includes(n)),
    ];
    await Promise.all(
      changed.map(async (target) => {
        const got = await registry.getAgent(target);
        if (got.ok) await (await agentStub(c.env, project, target)).configure(got.value);
      }),
    );
    return c.json({ source, format, script, warnings }, existing ? 200 : 201);
  })
  .get("/:name/script", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const profile = await call(registryStub(c.env, project).getAgent(name));
    const source = await call(registryStub(c.env, project).getScriptSource(name));
    if (!profile.script || source === null)
      throw new PantheonError("not_found", `agent '${name}' has no script`, { details: { agent: name } });
    const format = formatOf(source);
    let warnings: CompileResult["warnings"] = [];
    try {
      // Warnings are recomputed: a tool added since the script was set no longer deserves one.
      warnings = compile(source, format, {
        knownTools: await knownToolsOf(c.env, project, profile),
        knownAgents: await knownAgentsOf(c.env, project),
      }).warnings;
    } catch (error) {
      if (!isPantheonError(error) && !(error instanceof ScriptError)) throw error;
    }
    return c.json({ source, format, script: profile.script, warnings });
  });
