export * from "./profile";
export * from "./from-script";
export * from "./outbound-check";
export { checkSpawn, spawnGrantOf, type SpawnNode } from "./spawn";
export { withImportedTools, type ImportedToolReport } from "./tool-import";
export { agentExportFormats, agentImportFormats, fromAgentConfig, toAnthropicAgentConfig, toOpenAIAgentConfig, toOpenCodeAgentFile, type AgentExportFormat, type AgentImport, type AgentImportFormat } from "./formats";
