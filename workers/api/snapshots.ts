import { Hono } from "hono";
import {
  readSnapshotSlice,
  secretsNamedBy,
  snapshotFormat,
  snapshotVersion,
  type SnapshotHeader,
} from "../../core/agents/snapshot";
import { renamedEntry } from "../../core/agents/rename";
import { PantheonError } from "../../core/errors";
import { nameParam } from "./agents";
import { defaultModelFrom } from "../../core/models";
import { modelSettingsSchema } from "../../core/run/limits";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { runPrincipal } from "../auth";
import type { AppContext, AppEnv } from "../env";
import { scope } from "../scopes";
import { exportRedactor } from "../export-redaction";
import { projectOutbound } from "../project-secrets";
import { checkJsonLines, valid } from "../validation";
import { imageSnapshotLines, imageStoreOf, restoreImageLines } from "../images";
import { pushProfiles } from "./projects";
import { everyAgentsTools } from "./scripts";
import { compileFileScripts } from "./script-tools";
import type { ProjectFile } from "../../core/projects";

const ndjson = "application/x-ndjson";

/** The project file's script tools the agent lists: a snapshot carries them as the file does. */
function scriptToolsOf(file: ProjectFile, name: string): Partial<Pick<SnapshotHeader, "scriptTools">> {
  const listed = new Set(file.agents[name]?.tools ?? []);
  const tools = Object.entries(file.scriptTools ?? {}).filter(([tool]) => listed.has(tool));
  return tools.length ? { scriptTools: Object.fromEntries(tools) } : {};
}

const countOf = (text: string, type: string) => text.split(`{"type":"${type}",`).length - 1;

/**
 * The script tools a snapshot's agent lists, compiled for the target project: each one it lacks is
 * saved with the agent, the same one it has is kept; a different tool of that name there is refused
 * (the agent would call another tool than it was given), as is a source that does not compile.
 */
async function restorableScripts(c: AppContext, header: SnapshotHeader) {
  if (!header.scriptTools) return [];
  const project = c.get("project");
  const { scripts, issues } = await compileFileScripts(c.env, project, { scriptTools: header.scriptTools });
  if (issues.length)
    throw new PantheonError(
      "validation_failed",
      `the snapshot's script tools cannot be restored here: ${issues[0]!.path}: ${issues[0]!.message}`,
      { details: { issues } },
    );
  const registry = registryStub(c.env, project);
  for (const script of scripts) {
    const { name } = script.declaration;
    const there = await registry.scriptToolGet(name);
    if (there && there.source !== script.source)
      throw new PantheonError(
        "conflict",
        `project '${project}' has a different script tool '${name}' (version ${there.version}) than the one agent '${header.agent}' lists: restore into another project, or remove or rename the project's tool first`,
        { details: { tool: name, version: there.version } },
      );
  }
  return scripts;
}

/** Makes the agent a header describes, under the request's name, as a one-agent project file would. */
async function createFromHeader(c: AppContext, name: string, header: SnapshotHeader): Promise<string[]> {
  const project = c.get("project");
  const registry = registryStub(c.env, project);
  const existing = new Set((await registry.listAgents()).map((a) => a.name));
  if (existing.has(name)) {
    throw new PantheonError(
      "conflict",
      `agent '${name}' already exists: restore into a new name, or send the snapshot without its header line to add its history to '${name}' (pantheon agents restore --into-existing)`,
      { details: { agent: name } },
    );
  }
  const warnings: string[] = [];
  // Connections name agents of the snapshot's project; here only the ones that exist are kept.
  const connections = header.config.connections.filter((peer) => {
    if (existing.has(peer)) return true;
    warnings.push(`connection to '${peer}' dropped: no agent '${peer}' in project '${project}'`);
    return false;
  });
  const defaultModel = modelSettingsSchema.parse(defaultModelFrom(c.env.PANTHEON_DEFAULT_PROVIDER));
  // Under a new name the script's actor is renamed with it (its source and so its compiled JSON), and
  // the display name, which named the original, is left to the original.
  const renamed = name !== header.agent;
  const display = header.config.name;
  if (renamed && display !== undefined && display !== header.agent)
    warnings.push(`display name '${display}' left to '${header.agent}': the copy is shown as '${name}'`);
  const config = renamed ? { ...renamedEntry(header.config, name), name } : header.config;
  const scripts = await restorableScripts(c, header);
  const scriptNames = [
    ...(await registry.scriptToolList()).map((t) => t.name),
    ...scripts.map((t) => t.declaration.name),
  ];
  const result = await registry.importProjectFile(
    { agents: { [name]: { ...config, connections } } },
    {
      defaultModel,
      builtinTools: new Set([...everyAgentsTools, ...scriptNames]),
      scripts,
      agentTools: {},
      outbound: await projectOutbound(c.env, project),
      configuredBy: runPrincipal(c),
    },
  );
  if (!result.ok && result.code === "invalid_project_file") {
    const issues = (result.details?.issues ?? []) as { path: string; message: string }[];
    throw new PantheonError(
      "validation_failed",
      `the snapshot's configuration cannot be restored here: ${issues[0] ? `${issues[0].path.replace("$.agents." + name, "$.config")}: ${issues[0].message}` : result.message}`,
      { details: { issues } },
    );
  }
  const { touched, report } = await call(result);
  await pushProfiles(c.env, project, [...touched, ...report.agents.unchanged]);
  return [...warnings, ...report.warnings.map((w) => `${w.path}: ${w.message}`)];
}

/**
 * Snapshots: an agent captured whole as JSON lines (core/agents/snapshot.ts) and restored into a new
 * agent of any project or deployment, in slices within the request limit. Secrets are named, never
 * included; a restore answers which of them the target project lacks.
 */
export const snapshotRoutes = new Hono<AppEnv>()
  .get("/:name/snapshot", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const registry = registryStub(c.env, project);
    const profile = await call(registry.getAgent(name));
    const agent = await agentStub(c.env, project, name);
    const [file, body, servers, images] = await Promise.all([
      registry.exportProjectFile(),
      call(agent.snapshotLines()),
      agent.listMcpServers(),
      imageSnapshotLines(imageStoreOf(c.env), { project, agent: name }),
    ]);
    const warnings = servers.ok
      ? servers.value.map(
          (s) => `MCP server '${s.name}' (${s.url}) is not in a snapshot: connect it again after a restore`,
        )
      : [];
    const header: SnapshotHeader = {
      type: "snapshot",
      format: snapshotFormat,
      version: snapshotVersion,
      id: crypto.randomUUID(),
      agent: name,
      project,
      createdAt: Date.now(),
      config: exportRedactor(c.env).redactDeep(file.agents[name]!) as SnapshotHeader["config"],
      ...scriptToolsOf(file, name),
      secrets: secretsNamedBy(profile),
      counts: {
        sessions: countOf(body, "session"),
        messages: countOf(body, "message"),
        memories: countOf(body, "memory"),
        images: images.count,
      },
      warnings,
    };
    return c.body(JSON.stringify(header) + "\n" + body + images.text, 200, {
      "content-type": `${ndjson}; charset=utf-8`,
      "content-disposition": `attachment; filename="${name}.snapshot.jsonl"`,
    });
  })
  /**
   * A slice of a snapshot. With the header as its first line it makes the agent (409 when the name
   * is taken); without it the lines go into the existing agent. Every line is idempotent by id.
   */
  .post("/:name/snapshot/restore", scope("admin"), valid("param", nameParam), async (c) => {
    if (!(c.req.header("content-type") ?? "").includes(ndjson)) {
      throw new PantheonError(
        "unsupported_media_type",
        `send the snapshot as JSON lines with 'Content-Type: ${ndjson}' (what GET /api/agents/:name/snapshot writes), in slices of at most 64 KiB`,
      );
    }
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const text = await c.req.text();
    checkJsonLines(text);
    const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
    let created: { warnings: string[]; secrets: { name: string; set: boolean }[] } | undefined;
    if (/"type"\s*:\s*"snapshot"/.test(firstLine)) {
      const slice = readSnapshotSlice(firstLine);
      if (!slice.header) {
        const issue = slice.errors[0]!;
        throw new PantheonError("validation_failed", `line 1 (the snapshot header): ${issue.message}`, {
          details: { issues: [{ path: "line 1", message: issue.message }] },
        });
      }
      const warnings = [...slice.header.warnings, ...(await createFromHeader(c, name, slice.header))];
      const names = await registryStub(c.env, project).secretNames();
      const have = new Set([...names.own, ...names.granted]);
      created = { warnings, secrets: slice.header.secrets.map((secret) => ({ name: secret, set: have.has(secret) })) };
    }
    const agent = await agentStub(c.env, project, name);
    if (!created) await call(registryStub(c.env, project).getAgent(name));
    // Image lines go into this project's store here; the agent reads the rest (their lines left blank).
    const stored = await restoreImageLines(
      imageStoreOf(c.env),
      { project, agent: name },
      created ? text.slice(firstLine.length + 1) : text,
    );
    const report = await call(agent.restoreSnapshot(stored.rest));
    // Line numbers are the request's own, the header counted.
    const shift = created ? 1 : 0;
    const errors = [...report.errors, ...stored.errors]
      .sort((a, b) => a.line - b.line)
      .map((e) => ({ line: e.line + shift, message: e.message }));
    if (!created) return c.json({ agent: name, created: false, ...report, images: stored.images, errors }, 200);
    return c.json(
      {
        agent: name,
        created: true,
        ...report,
        images: stored.images,
        errors,
        secrets: created.secrets,
        warnings: [...created.warnings, ...report.warnings],
      },
      201,
    );
  });
