// ACP mapping (run events → session updates); the bridge is cli/acp/agent.ts.
export * from "./updates";
