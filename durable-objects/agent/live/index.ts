// The live side of an agent: its synced status, run events to WebSocket clients, SSE streams (AgentDO wires it).
export * from "./sockets";
export * from "./status";
export * from "./stream";
