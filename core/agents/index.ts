export * from "./profile";
export * from "./from-script";
export * from "./outbound-check";
export { checkSpawn, spawnGrantOf, type SpawnNode } from "./spawn";
export { withImportedTools, type ImportedToolReport } from "./tool-import";
export {
  agentExportFormats,
  agentImportFormats,
  fromAgentConfig,
  toAnthropicAgentConfig,
  toOpenAIAgentConfig,
  type AgentExportFormat,
  type AgentImport,
  type AgentImportFormat,
} from "./formats";
// The OpenCode format (./opencode.ts) is imported on its own, with `import()` where a route needs it:
// it brings the YAML library, which the worker would otherwise evaluate at every isolate's startup.
export type { OpenCodeImport } from "./opencode";
export { partWarning, unheldParts, type AgentPart, type FormatWarning, type PartWarning } from "./lost-parts";
