export { AgentDO } from "../durable-objects/agent/agent-do";
export { RegistryDO } from "../durable-objects/registry/registry-do";

export default {
  async fetch(): Promise<Response> {
    return new Response("ok");
  },
  async queue(): Promise<void> {},
  async scheduled(): Promise<void> {},
} satisfies ExportedHandler<Env>;
