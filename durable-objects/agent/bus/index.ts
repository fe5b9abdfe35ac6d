// The bus feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./bus";
export * from "./fanout";
export * from "./spawn";
export type { ChildAlarm } from "./supervisor";
export * from "./fanout-tool";
