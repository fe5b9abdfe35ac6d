import { makeApp } from "./app";
import { wakeCronBehaviors } from "./api/schedules";
import { handleQueue } from "./queue";
import { handleInboundEmail } from "./doors/gateways/email";
import { noteCronTick } from "./api/doctor";

export { AgentDO } from "../durable-objects/agent/agent-do";
export { RegistryDO } from "../durable-objects/registry/registry-do";
export { FeatureDO } from "../durable-objects/feature/feature-do";

/**
 * The app is built on the first request rather than at startup: an isolate that only runs the Durable
 * Objects (every agent's) never takes a request here, and mounting its ~550 routes was a share of
 * every isolate's startup CPU.
 */
let app: ReturnType<typeof makeApp> | undefined;

export default {
  fetch: (request, env, ctx) => (app ??= makeApp()).fetch(request, env, ctx),
  /** Cloudflare Queues: the agents' bus (`pantheon-bus`) and its dead-letter queue (workers/queue.ts). */
  async queue(batch, env): Promise<void> {
    await handleQueue(batch, env);
  },
  /** Cron Trigger (every minute): wakes the agents whose cron behaviors match this minute. */
  async scheduled(controller, env, ctx): Promise<void> {
    ctx.waitUntil(wakeCronBehaviors(env, controller.scheduledTime));
    ctx.waitUntil(noteCronTick(env, controller.scheduledTime));
  },
  /** Cloudflare Email Routing: mail to `<agent>+<project>@…` reaches that agent's email gateway (workers/doors/gateways/email.ts). */
  async email(message, env): Promise<void> {
    await handleInboundEmail(message, env);
  },
} satisfies ExportedHandler<Env>;
