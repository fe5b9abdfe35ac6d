export {
  defaultSandboxLimits,
  describeSandboxError,
  type SandboxError,
  type SandboxErrorKind,
  type SandboxFetchResponse,
  type SandboxHost,
  type SandboxLimits,
  type SandboxRequest,
  type SandboxResult,
  type SandboxRunner,
} from "./port";
export { compileScript, stepHook, type CompiledScript } from "./compile";
export { scriptInvalid } from "./invalid";
export { scriptFromForm } from "./from-form";
export { scriptDeclarationSchema, type ScriptDeclaration } from "./declaration";
export {
  maxProjectScriptTools,
  maxScriptSourceBytes,
  scriptToolSpec,
  summaryOf,
  type ScriptToolSummary,
  type StoredScriptTool,
} from "./script-tool";
