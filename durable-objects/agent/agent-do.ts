import { Agent } from "agents";

export class AgentDO extends Agent<Env> {
  ping(): string {
    return "pong";
  }
}
