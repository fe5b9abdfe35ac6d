import { DurableObject } from "cloudflare:workers";

export class RegistryDO extends DurableObject<Env> {
  ping(): string {
    return "pong";
  }
}
