// The chat feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./live";
export * from "./messages";
export * from "./sessions";
export * from "./settings";
