// The bus feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./bus";
export * from "./fanout";
export * from "./spawn";
export * from "./fanout-tool";
