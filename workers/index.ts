import { makeApp } from "./app";

export { AgentDO } from "../durable-objects/agent/agent-do";
export { RegistryDO } from "../durable-objects/registry/registry-do";

const app = makeApp();

export default {
  fetch: app.fetch,
  async queue(): Promise<void> {},
  async scheduled(): Promise<void> {},
} satisfies ExportedHandler<Env>;
