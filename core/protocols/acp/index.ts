// ACP mapping (run events → session updates); the bridge is workers/doors/acp/agent.ts.
export * from "./updates";
