import { routeAgentEmail } from "agents";
import { emailRecipient, senderAllowed } from "../../../core/gateways";
import { agentObjectName } from "../../../durable-objects/stubs";
import { gatewayIndex } from "./index-store";

/**
 * The worker's `email` handler (Cloudflare Email Routing): `<agent>+<project>@<your domain>` (or
 * `<agent>@…` for the `default` project) reaches that agent when it has an email gateway and the
 * sender is on its allowlist; anything else is rejected here, before any agent is woken. The mail
 * is handed over with the agents SDK's `routeAgentEmail` (the agent's `onEmail` runs it and replies
 * with `replyToEmail`), and the agent checks the allowlist again.
 * @example
 * export default { email: (message, env) => handleInboundEmail(message, env) };
 */
export async function handleInboundEmail(message: ForwardableEmailMessage, env: Env): Promise<void> {
  const target = emailRecipient(message.to);
  const entry = target ? await gatewayIndex(env).get("email", target.project, target.agent) : null;
  if (!target || !entry) return message.setReject("unknown recipient");
  if (!senderAllowed(message.from, entry.allowedSenders))
    return message.setReject("the sender is not allowed to write to this agent");
  await routeAgentEmail(message, env, {
    resolver: async () => ({ agentName: "AGENT_DO", agentId: agentObjectName(target.project, target.agent) }),
    onNoRoute: (email) => email.setReject("unknown recipient"),
  });
}
