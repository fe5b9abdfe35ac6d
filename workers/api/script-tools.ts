import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { isPantheonError, jsonPath, notFound, PantheonError } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import {
  compileScript as compileDsl,
  isScriptError,
  ScriptError,
  type ScriptIssue,
  type ScriptToolForm,
} from "../../core/dsl";
import { compileScript, maxScriptSourceBytes, scriptFromForm, type CompiledScript } from "../../core/sandbox";
import { toolNamePattern, toolSecretRefusal } from "../../core/tools";
import { projectOutbound } from "../project-secrets";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { checkReach, projectRecord } from "../projects";
import { valid } from "../validation";

const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));
const toolParam = lazySchema(() =>
  z.object({ slug: projectNameSchema, name: z.string().regex(toolNamePattern, "a tool name").max(64) }),
);
const scriptInput = lazySchema(() =>
  z.strictObject({
    source: z.string().min(1).max(maxScriptSourceBytes, `a script of at most ${maxScriptSourceBytes} characters`),
  }),
);

/** As for HTTP tools: each secret a script declares is one the project has, never Pantheon's own, a model key or a provider's key. */
async function secretRefusals(env: Env, slug: string, secrets: string[]) {
  if (!secrets.length) return [];
  const { toolSecrets } = await projectOutbound(env, slug);
  return secrets.flatMap((name, index) => {
    const message = toolSecretRefusal(name, toolSecrets, slug);
    return message ? [{ index, message }] : [];
  });
}

/**
 * A project file's script tools (`scriptTools: { name: { source } }`), compiled before the file is
 * imported: the compiled ones for the registry to save, or each problem at its JSON path. What is not
 * an object of sources is left to the file's own schema, which names it.
 */
export async function compileFileScripts(
  env: Env,
  slug: string,
  file: unknown,
): Promise<{ scripts: (CompiledScript & { source: string })[]; issues: { path: string; message: string }[] }> {
  const listed = file && typeof file === "object" ? (file as { scriptTools?: unknown }).scriptTools : undefined;
  const given = listed && typeof listed === "object" ? listed : {};
  const scripts: (CompiledScript & { source: string })[] = [];
  const issues: { path: string; message: string }[] = [];
  for (const [name, entry] of Object.entries(given)) {
    const source = entry && typeof entry === "object" ? (entry as { source?: unknown }).source : undefined;
    if (typeof source !== "string" || source.length > maxScriptSourceBytes) continue;
    const path = jsonPath(["scriptTools", name, "source"]);
    try {
      const compiled = await compileScript(source);
      if (compiled.declaration.name !== name)
        issues.push({ path, message: `the script declares the name '${compiled.declaration.name}', not '${name}'` });
      for (const refused of await secretRefusals(env, slug, compiled.declaration.secrets))
        issues.push({ path, message: `tool.secrets[${refused.index}]: ${refused.message}` });
      scripts.push({ ...compiled, source });
    } catch (error) {
      if (!isPantheonError(error)) throw error;
      issues.push({ path, message: error.message });
    }
  }
  // An agent's DSL script may declare tools too ((tool …)); the ones `scriptTools` does not hold are
  // compiled from it. A script that does not compile is left to the import's plan, which names it.
  const agents = file && typeof file === "object" ? (file as { agents?: unknown }).agents : undefined;
  for (const [key, agent] of Object.entries(agents && typeof agents === "object" ? agents : {})) {
    const source = (agent as { pantheon?: { script?: unknown } } | null)?.pantheon?.script;
    if (typeof source !== "string" || !source.includes("(tool")) continue;
    let forms: ScriptToolForm[] = [];
    try {
      forms = compileDsl(source).scriptTools ?? [];
    } catch (error) {
      if (!isScriptError(error)) throw error;
    }
    const path = jsonPath(["agents", key, "pantheon", "script"]);
    for (const form of forms) {
      if (Object.hasOwn(given, form.name) || scripts.some((s) => s.declaration.name === form.name)) continue;
      try {
        scripts.push(...(await compileToolForms(env, slug, [form])));
      } catch (error) {
        if (!isScriptError(error)) throw error;
        issues.push({ path, message: error.message });
      }
    }
  }
  return { scripts, issues };
}

/**
 * A DSL script's `(tool …)` forms, compiled before the script is stored: the modules to save, or a
 * ScriptError naming each bad form's field at its line (the source's own line in the message).
 */
export async function compileToolForms(
  env: Env,
  slug: string,
  forms: ScriptToolForm[],
): Promise<(CompiledScript & { source: string })[]> {
  const scripts: (CompiledScript & { source: string })[] = [];
  const issues: ScriptIssue[] = [];
  const refuse = (form: ScriptToolForm, expected: string, message: string) =>
    issues.push({ line: form.pos.line, column: form.pos.column, form: "tool", expected, found: form.name, message });
  for (const form of forms) {
    if (form.source === undefined) {
      // The API has no files: the CLI reads a :path and sends its text as :source.
      refuse(
        form,
        ":source",
        `(tool "${form.name}") :path "${form.path}" is read by the CLI (pantheon script push); the API takes the code as :source "…"`,
      );
      continue;
    }
    try {
      const compiled = await scriptFromForm({ name: form.name, fields: form.fields, source: form.source });
      const [refused] = await secretRefusals(env, slug, compiled.declaration.secrets);
      if (refused)
        refuse(
          form,
          "a secret the project has",
          `(tool "${form.name}") :secrets[${refused.index}]: ${refused.message}`,
        );
      else scripts.push(compiled);
    } catch (error) {
      if (!isPantheonError(error)) throw error;
      refuse(form, "a script tool that compiles", `(tool "${form.name}") ${error.message}`);
    }
  }
  if (issues.length) throw new ScriptError(issues);
  return scripts;
}

/** Saves a script's compiled `(tool …)` forms to the project and re-configures the agents that list them. */
export async function saveToolForms(
  env: Env,
  slug: string,
  scripts: (CompiledScript & { source: string })[],
  except: string,
): Promise<void> {
  const users = new Set<string>();
  for (const script of scripts) {
    const saved = await call(registryStub(env, slug).scriptToolPut(script));
    for (const user of saved.users) if (user !== except) users.add(user);
  }
  await reconfigure(env, slug, [...users]);
}

/** Pushes the profiles of the agents that list a saved script tool: they run it from their profile. */
async function reconfigure(env: Env, slug: string, users: string[]): Promise<void> {
  if (users.length === 0) return;
  const profiles = (await registryStub(env, slug).listAgents()).filter((agent) => users.includes(agent.name));
  await Promise.all(profiles.map(async (profile) => (await agentStub(env, slug, profile.name)).configure(profile)));
}

/**
 * A project's script tools (admin of that project, or the deployment admin): `POST /:slug/tools`
 * `{ source }` compiles a TypeScript file that declares itself (`export const tool = { name,
 * description, input, hosts?, secrets?, tools? }`) and exports its function as default, and stores
 * it one version up under its declared name; a file that does not compile is a 400 naming the line.
 * Any agent whose tools list the name may call it; it runs in the sandbox (core/sandbox).
 */
export const scriptToolRoutes = new Hono<AppEnv>()
  .get("/:slug/tools", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    return c.json({ tools: await registryStub(c.env, slug).scriptToolList() });
  })
  .get("/:slug/tools/:name", scope("admin"), valid("param", toolParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const tool = await registryStub(c.env, slug).scriptToolGet(name);
    if (!tool) throw notFound("script tool", name);
    const { code: _code, ...shown } = tool;
    return c.json({ tool: shown });
  })
  .post("/:slug/tools", scope("admin"), valid("param", slugOnly), valid("json", scriptInput), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const { source } = c.req.valid("json");
    const compiled = await compileScript(source);
    const [refused] = await secretRefusals(c.env, slug, compiled.declaration.secrets);
    if (refused)
      throw new PantheonError("validation_failed", `tool.secrets[${refused.index}]: ${refused.message}`, {
        details: { issues: [{ path: ["tool", "secrets", refused.index], message: refused.message }] },
      });
    const saved = await call(registryStub(c.env, slug).scriptToolPut({ ...compiled, source }));
    await reconfigure(c.env, slug, saved.users);
    return c.json({ tool: saved.tool, agents: saved.users }, 201);
  })
  .delete("/:slug/tools/:name", scope("admin"), valid("param", toolParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    await call(registryStub(c.env, slug).scriptToolDelete(name));
    return c.body(null, 204);
  });
