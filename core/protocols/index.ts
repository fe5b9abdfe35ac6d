// Protocol adapters' pure halves: a protocol's messages to a run, a run's events to the protocol.
export * from "./agui";
export * from "./agent-mcp";
