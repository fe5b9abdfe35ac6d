export * from "./profile";
export * from "./from-script";
export * from "./outbound-check";
export { checkSpawn, spawnGrantOf, type SpawnNode } from "./spawn";
export { withImportedTools, type ImportedToolReport } from "./tool-import";
export { agentExportFormats, agentImportFormats, fromAgentConfig, toAnthropicAgentConfig, toOpenAIAgentConfig, type AgentExportFormat, type AgentImport, type AgentImportFormat } from "./formats";
export { fromOpenCodeAgentFile, toOpenCodeAgentFile, type OpenCodeImport } from "./opencode";
export { partWarning, unheldParts, type AgentPart, type FormatWarning, type PartWarning } from "./lost-parts";
