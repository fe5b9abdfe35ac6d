// The runs feature of an agent (AgentDO wires it; the rest of its files stay internal to it).
export * from "./alarms";
export * from "./buckets";
export * from "./driver";
export * from "./models";
export { makeSessionTools, type SessionTools } from "./overrides";
export * from "./store";
export * from "./tools";
export * from "./turns";
export { makeOnce, clientRunId, type Once } from "./once";
export * from "./views";
export * from "./context";
export * from "./events";
export * from "./output-screens";
export * from "./start";
export { makeHeldWrites, type HeldWrites } from "./held-writes";
