export * from "./profile";
export * from "./from-script";
export * from "./outbound-check";
export { checkSpawn, spawnGrantOf, type SpawnNode } from "./spawn";
export { withImportedTools, type ImportedToolReport } from "./tool-import";
