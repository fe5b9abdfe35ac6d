// The profile of an agent as the registry configured it (AgentDO wires it).
export * from "./profile";
