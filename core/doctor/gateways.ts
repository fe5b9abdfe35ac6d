import { secretFix } from "../models";
import type { DoctorCheck, DoctorFacts } from "./facts";

/** The Telegram API base and each agent's Telegram and email gateways: secrets present, who may use them. */
export function gatewayChecks(facts: DoctorFacts): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const add = (check: DoctorCheck) => checks.push(check);
  const ps = facts.projectSecrets;
  if (!facts.telegramApiBase.ok)
    add({
      id: "telegram:api-base",
      area: "gateways",
      status: "problem",
      message: facts.telegramApiBase.error,
      fix: "set TELEGRAM_API_BASE to an https URL, or remove it for the official Bot API",
    });
  for (const agent of facts.agents) {
    const t = agent.telegram;
    if (t) {
      add(
        t.botTokenPresent
          ? {
              id: `telegram:${agent.name}`,
              area: "gateways",
              status: "ok",
              message: `${agent.name}: Telegram gateway, bot token in ${t.botTokenSecret}`,
            }
          : {
              id: `telegram:${agent.name}`,
              area: "gateways",
              status: "problem",
              message: `${agent.name}: the Telegram gateway's bot token secret ${t.botTokenSecret} is not a secret of project ${ps.project}: no reply can be sent`,
              fix: `pantheon secrets set ${t.botTokenSecret} --project ${ps.project}${ps.project === "default" ? ` (or ${secretFix(t.botTokenSecret, facts.deployment)})` : ""}`,
            },
      );
      if (t.anyChat)
        add({
          id: `telegram:${agent.name}:chats`,
          area: "gateways",
          status: "warn",
          message: `${agent.name}: any Telegram chat that finds the bot can start runs`,
          fix: `PUT /api/agents/${agent.name}/gateways/telegram with allowedChatIds`,
        });
      if (t.approvers === 0)
        add({
          id: `telegram:${agent.name}:approvers`,
          area: "gateways",
          status: "warn",
          message: `${agent.name}: no Telegram user may approve; paused calls wait for the API or the PWA`,
          fix: `PUT /api/agents/${agent.name}/gateways/telegram with approverUserIds`,
        });
    }
    if (agent.email)
      add({
        id: `email:${agent.name}`,
        area: "gateways",
        status: "ok",
        message: `${agent.name}: email gateway, ${agent.email.allowedSenders} allowed sender rule(s)`,
      });
  }
  return checks;
}
