// The memory feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./context-store";
export * from "./context-turn";
export * from "./feature";
export * from "./io";
export * from "./lifecycle";
export * from "./ports";
export * from "./records";
export * from "./store";
export * from "./tools";
export * from "./vectors";
