import { makeApp } from "./app";
import { wakeCronBehaviors } from "./api/schedules";
import { handleQueue } from "./queue";

export { AgentDO } from "../durable-objects/agent/agent-do";
export { RegistryDO } from "../durable-objects/registry/registry-do";

const app = makeApp();

export default {
  fetch: app.fetch,
  /** Cloudflare Queues: the agents' bus (`pantheon-bus`) and its dead-letter queue (workers/queue.ts). */
  async queue(batch, env): Promise<void> {
    await handleQueue(batch, env);
  },
  /** Cron Trigger (every minute): wakes the agents whose cron behaviors match this minute. */
  async scheduled(controller, env, ctx): Promise<void> {
    ctx.waitUntil(wakeCronBehaviors(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
