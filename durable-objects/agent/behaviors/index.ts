// The behaviors feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./behaviors";
export * from "./plan";
export * from "./state";
