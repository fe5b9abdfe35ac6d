// The gateways feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./email";
export * from "./gateways";
