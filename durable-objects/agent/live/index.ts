// The live side of an agent: its synced status, run events to WebSocket clients, SSE streams, and
// the incarnation its sockets are bound to (AgentDO wires it).
export * from "./incarnation";
export * from "./sockets";
export * from "./status";
export * from "./stream";
