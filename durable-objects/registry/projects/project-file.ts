import { asc, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { RunPrincipal } from "../../../core/auth";
import { PantheonError, type Result } from "../../../core/errors";
import {
  exportProjectFile as exportFile,
  parseProjectFile,
  planImport,
  type CurrentAgent,
  type FileIssue,
  type PlanOptions,
  type ProjectFile,
} from "../../../core/projects";
import type { OutboundSettings } from "../../../core/tools";
import { toProfile } from "../agents/profiles";
import type { ProviderStore } from "../provider-store";
import type { ScriptToolStore } from "../script-tool-store";
import type { McpServerStore, ProjectMcpServers } from "../mcp-server-store";
import type { CompiledScript } from "../../../core/sandbox";
import * as schema from "../schema";

/** What `POST /api/projects/:slug/import` answers (the contract of issue 15). */
export interface ImportReport {
  changed: boolean;
  agents: { created: string[]; updated: string[]; unchanged: string[] };
  connections: { added: string[]; removed: string[] };
  warnings: FileIssue[];
}

const fail = (error: PantheonError) => error.toFailure();
const invalidFile = (issues: FileIssue[]) =>
  new PantheonError(
    "invalid_project_file",
    `the project file is not valid: ${issues[0]?.path}: ${issues[0]?.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
    { details: { issues } },
  );

/** Project files (core/projects parses them and plans the diff): the import's writes, in one transaction, and the export. */
export function makeProjectFiles(deps: {
  db: DrizzleSqliteDODatabase<typeof schema>;
  storage: DurableObjectState["storage"];
  providers: ProviderStore;
  scriptTools: ScriptToolStore;
  /** The project's MCP servers for all its agents: a file's declarations are kept, exported without a token. */
  mcpServers: McpServerStore;
}) {
  const { db, storage, providers, scriptTools, mcpServers } = deps;
  const kv = storage.kv;

  function currentAgents(): CurrentAgent[] {
    return db
      .select()
      .from(schema.agents)
      .orderBy(asc(schema.agents.name))
      .all()
      .map((row) => ({
        profile: toProfile(row),
        displayName: kv.get<string>(`display-name/${row.name}`) ?? null,
        scriptSource: row.scriptSource,
      }));
  }

  /**
   * Imports a project file: every agent created or updated, then every connection, in one
   * transaction, so a refused file changes nothing and a second import of the same file changes
   * nothing (`changed: false`). Answers the report and the names of the agents whose profile
   * changed (the worker pushes those, and the agents connected to them, to their Durable Objects).
   */
  function importProjectFile(
    value: unknown,
    options: PlanOptions & {
      outbound: OutboundSettings;
      configuredBy?: RunPrincipal;
      /** The file's script tools, compiled by the worker (core/sandbox compileScript): saved before the agents. */
      scripts?: (CompiledScript & { source: string })[];
    },
  ): Result<{ report: ImportReport; touched: string[]; mcpServers?: ProjectMcpServers }> {
    const current = currentAgents();
    const parsed = parseProjectFile(value, new Set(current.map((c) => c.profile.name)), options.outbound);
    if (!parsed.ok) return fail(invalidFile(parsed.issues));
    const planned = planImport(parsed.file, current, options);
    if (!planned.ok) return fail(invalidFile(planned.issues));
    const { plan } = planned;
    const unknownProviders = providers.fileIssues([...plan.create, ...plan.update]);
    if (unknownProviders.length) return fail(invalidFile(unknownProviders));
    const now = Date.now();
    for (const script of options.scripts ?? []) {
      const saved = scriptTools.put(script, [], now);
      if (!saved.ok) return saved;
    }
    storage.transactionSync(() => {
      for (const agent of [...plan.create, ...plan.update]) {
        const values = {
          description: agent.description,
          systemPrompt: agent.systemPrompt,
          role: agent.role,
          goals: agent.goals,
          model: agent.model,
          runtime: agent.runtime,
          script: agent.script,
          scriptSource: agent.scriptSource,
          configuredBy: agent.script ? (options.configuredBy ?? null) : null,
          updatedAt: now,
        };
        if (plan.create.includes(agent)) {
          db.insert(schema.agents)
            .values({
              name: agent.name,
              ...values,
              connections: [],
              parent: null,
              createdAt: now,
            })
            .run();
          kv.put(`incarnation/${agent.name}`, crypto.randomUUID());
        } else db.update(schema.agents).set(values).where(eq(schema.agents.name, agent.name)).run();
        if (agent.displayName === null) kv.delete(`display-name/${agent.name}`);
        else kv.put(`display-name/${agent.name}`, agent.displayName);
      }
      for (const { name, connections } of plan.connect)
        db.update(schema.agents).set({ connections, updatedAt: now }).where(eq(schema.agents.name, name)).run();
    });
    // The file's MCP servers declared for all the agents (the same declaration again changes nothing).
    const before = mcpServers.list().version;
    for (const [name, server] of Object.entries(parsed.file.mcpServers ?? {})) {
      const saved = mcpServers.put({
        name,
        url: new URL(server.url).href,
        headers: server.headers,
        ...(server.transport ? { transport: server.transport } : {}),
        ...(server.oauth ? { oauth: true as const } : {}),
      });
      if (!saved.ok) return saved;
    }
    const declared = mcpServers.list();
    const touched = [
      ...new Set([...plan.create, ...plan.update].map((a) => a.name).concat(plan.connect.map((c) => c.name))),
    ];
    return {
      ok: true,
      value: {
        report: {
          changed: plan.changed,
          agents: {
            created: plan.create.map((a) => a.name),
            updated: plan.update.map((a) => a.name),
            unchanged: plan.unchanged,
          },
          connections: { added: plan.added, removed: plan.removed },
          warnings: [...parsed.warnings, ...plan.warnings],
        },
        touched,
        ...(declared.version !== before ? { mcpServers: declared } : {}),
      },
    };
  }

  /** The project as a project file (`GET /api/projects/:slug/export`). */
  function exportProjectFile(): ProjectFile {
    const current = currentAgents();
    const file = exportFile(current);
    // The project's script tools the agents list travel with them, as their source.
    const listed: Record<string, { source: string }> = {};
    for (const { profile } of current)
      for (const name of profile.runtime.tools) {
        const tool = scriptTools.get(name);
        if (tool) listed[name] = { source: tool.source };
      }
    // The project's MCP servers travel as their declarations (a header's secret by name; an OAuth token never).
    const servers = Object.fromEntries(mcpServers.list().servers.map(({ name, ...server }) => [name, server]));
    return {
      ...file,
      ...(Object.keys(listed).length ? { scriptTools: listed } : {}),
      ...(Object.keys(servers).length ? { mcpServers: servers as ProjectFile["mcpServers"] } : {}),
    };
  }

  return { importProjectFile, exportProjectFile };
}
