// A2A (Agent2Agent) mapping: runs ↔ tasks, agents ↔ cards. The HTTP shell is workers/doors/a2a.
export * from "./card";
export * from "./task";
