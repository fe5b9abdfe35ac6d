// The mcp feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./client";
export * from "./names";
export * from "./results";
export * from "./servers";
export * from "./credentials";
export * from "./oauth";
export * from "./reauthorise";
export * from "./elicitation";
export * from "./project";
