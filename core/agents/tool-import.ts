import type { ImportedTool, ToolIssue } from "../tools/interop";
import { httpToolSchema, type AgentRuntime, type HttpToolConfig } from "./profile";

/** What importing tools into an agent did to each. */
export interface ImportedToolReport {
  name: string;
  /** `http`: an HTTP tool at its endpoint; `declared`: a name in the agent's tools, with nothing behind it yet. */
  runtime: "http" | "declared";
}

/**
 * The agent's runtime with `imported` added: a tool with an endpoint becomes (or replaces) an HTTP
 * tool, any other is declared by name in `tools`, with a warning unless the agent already has a tool
 * of that name (`provided`). Fields an HTTP tool cannot keep are warnings too.
 * @example
 * const { runtime, imported } = withImportedTools(profile.runtime, tools, new Set(["clock.now"]));
 */
export function withImportedTools(
  runtime: AgentRuntime,
  imported: readonly ImportedTool[],
  provided: ReadonlySet<string>,
) {
  const warnings: ToolIssue[] = [];
  const issues: ToolIssue[] = [];
  const report: ImportedToolReport[] = [];
  const httpTools = [...runtime.httpTools];
  const tools = [...runtime.tools];
  for (const { spec, endpoint, path } of imported) {
    const at = (field?: string) => (field ? `${path}.${field}` : path);
    if (endpoint === undefined) {
      if (!tools.includes(spec.name)) tools.push(spec.name);
      if (!provided.has(spec.name))
        warnings.push({
          path: at(),
          message: `'${spec.name}' has no endpoint: declared by name only (its description and schema are not kept; the agent can call it once a tool of that name exists)`,
        });
      report.push({ name: spec.name, runtime: "declared" });
      continue;
    }
    const parsed = httpToolSchema.safeParse({
      name: spec.name,
      description: spec.description || spec.title || spec.name,
      parameters: spec.parameters,
      endpoint,
      ...(spec.requiresApproval !== undefined ? { requiresApproval: spec.requiresApproval } : {}),
      ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
      ...(spec.idempotent ? { idempotent: true } : {}),
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push({
          path: at(issue.path[0] === "endpoint" ? "endpoint" : undefined),
          message: `${String(issue.path.join(".") || "tool")}: ${issue.message}`,
        });
      continue;
    }
    for (const field of ["title", "outputSchema", "annotations", "strict"] as const) {
      if (spec[field] !== undefined && !(field === "annotations" && spec.idempotent))
        warnings.push({ path: at(field), message: `an HTTP tool keeps no '${field}'; left out` });
    }
    const tool: HttpToolConfig = parsed.data;
    const existing = httpTools.findIndex((t) => t.name === tool.name);
    // Headers (and their secrets) are the operator's: a re-import keeps them.
    if (existing >= 0) httpTools[existing] = { ...tool, headers: httpTools[existing]!.headers };
    else httpTools.push(tool);
    report.push({ name: spec.name, runtime: "http" });
  }
  return { runtime: { ...runtime, tools, httpTools }, imported: report, warnings, issues };
}
