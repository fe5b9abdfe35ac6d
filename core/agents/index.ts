export * from "./profile";
export * from "./from-script";
export { checkSpawn, spawnGrantOf, type SpawnNode } from "./spawn";
