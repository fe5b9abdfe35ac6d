import type { ToolSpec } from "../tools/tool-spec";
import type { ScriptDeclaration } from "./declaration";

/** Bytes of a script's source a project may store. */
export const maxScriptSourceBytes = 256 * 1024;
/** Script tools one project may hold. */
export const maxProjectScriptTools = 100;

/**
 * A script tool as a project keeps it: what the file declares, its source and its compiled module,
 * and a version counted up at each save of a changed source (the first save is 1).
 */
export interface StoredScriptTool extends ScriptDeclaration {
  version: number;
  source: string;
  code: string;
  codeId: string;
  updatedAt: number;
}

/** What a listing shows of a script tool: everything but its source and module. */
export type ScriptToolSummary = Omit<StoredScriptTool, "source" | "code">;

export function summaryOf(tool: StoredScriptTool): ScriptToolSummary {
  const { source: _source, code: _code, ...summary } = tool;
  return summary;
}

/**
 * The tool the model sees: the script's declaration as a spec of runtime `script`.
 * @example
 * scriptToolSpec(stored); // { name: "csv.stats", description: "…", parameters: { type: "object", … }, runtime: "script" }
 */
export function scriptToolSpec(tool: ScriptDeclaration): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.input,
    runtime: "script",
    ...(tool.requiresApproval ? { requiresApproval: true } : {}),
    ...(tool.idempotent ? { idempotent: true } : {}),
  };
}
