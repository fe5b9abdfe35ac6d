// A2A (Agent2Agent) mapping: runs ↔ tasks, agents ↔ cards. The HTTP shell is workers/protocols/a2a.
export * from "./card";
export * from "./task";
