import { Hono } from "hono";
import { sha256Hex } from "../../../core/auth";
import { shortFingerprint } from "../../../core/secrets";
import { PantheonError } from "../../../core/errors";
import {
  emailConfigInputSchema,
  telegramConfigInputSchema,
  telegramWebhookInputSchema,
  type EmailConfig,
  type TelegramConfig,
} from "../../../core/gateways";
import { deploymentOf } from "../../../core/models";
import { telegramView } from "../../../durable-objects/agent/gateways/gateways";
import type { AppEnv } from "../../env";
import { scope } from "../../scopes";
import { gatewayIndex } from "./index-store";
import { agentStub, call } from "../../../durable-objects/stubs";
import { valid } from "../../validation";
import { nameParam } from "../../api/agents";
import { secretFingerprintOf, secretRefusal } from "../../project-secrets";
import { checkDeploymentAdmin } from "../../projects";

/** Where Telegram posts this agent's updates (the public route of ./telegram.ts). */
export const telegramWebhookPath = (project: string, agent: string) => `/gateways/telegram/${project}/${agent}`;

/** 32 random bytes, base64url: Telegram's alphabet for secret tokens. */
function newSecretToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}

/**
 * The bot token secret must be one of the project's own (or granted to it): a project never names
 * another's bot. And one bot belongs to one project: a token another project's gateway uses (same
 * keyed fingerprint) is refused, without naming that project.
 */
async function checkBot(env: Env, project: string, botTokenSecret: string): Promise<string | null> {
  const refusal = await secretRefusal(env, project, botTokenSecret, "telegram");
  if (refusal)
    throw new PantheonError("validation_failed", `the bot token secret is not valid: ${refusal}`, {
      details: { issues: [{ path: ["botTokenSecret"], message: refusal }] },
    });
  const fingerprint = await secretFingerprintOf(env, project, botTokenSecret);
  if (fingerprint) await assertBotFree(env, project, botTokenSecret, fingerprint);
  return fingerprint;
}

/** 409 when another project's Telegram gateway uses the bot of this keyed fingerprint (that project is not named). */
export async function assertBotFree(
  env: Env,
  project: string,
  botTokenSecret: string,
  fingerprint: string,
): Promise<void> {
  const taken = (await gatewayIndex(env).list("telegram")).some(
    (o) => o.entry.botFingerprint === fingerprint && o.project !== project,
  );
  if (taken) {
    throw new PantheonError(
      "conflict",
      `the bot token in ${botTokenSecret} is already the bot of another project: a bot belongs to one project (ask the deployment admin: GET /api/gateways/telegram)`,
      { details: { issues: [{ path: ["botTokenSecret"], message: "a bot another project uses" }] } },
    );
  }
}

const botPresent = async (env: Env, project: string, name: string) =>
  (await secretRefusal(env, project, name, "telegram")) === undefined;

const noGateway = (kind: string, agent: string) =>
  new PantheonError(
    "not_found",
    `agent '${agent}' has no ${kind} gateway: PUT /api/agents/${agent}/gateways/${kind} first`,
    { details: { agent, gateway: kind } },
  );

function emailView(config: EmailConfig, project: string, agent: string) {
  return { ...config, address: `${agent}${project === "default" ? "" : `+${project}`}@<your Email Routing domain>` };
}

/**
 * Per-agent messaging gateways (admin): `PUT`/`GET`/`DELETE /api/agents/:name/gateways/telegram`
 * and `…/email`, and `POST …/gateways/telegram/webhook` which registers the webhook with Telegram
 * (`setWebhook` with the secret token) from the server, so the bot token never leaves the worker.
 */
export const gatewayRoutes = new Hono<AppEnv>()
  .put(
    "/:name/gateways/telegram",
    scope("admin"),
    valid("param", nameParam),
    valid("json", telegramConfigInputSchema),
    async (c) => {
      const project = c.get("project");
      const { name } = c.req.valid("param");
      const input = c.req.valid("json");
      const agent = await agentStub(c.env, project, name);
      const previous = (await call(agent.gatewayGet("telegram"))) as TelegramConfig | null;
      const botFingerprint = await checkBot(c.env, project, input.botTokenSecret);
      const config: TelegramConfig = {
        secretToken: input.secretToken ?? previous?.secretToken ?? newSecretToken(),
        botTokenSecret: input.botTokenSecret,
        ...(input.allowedChatIds ? { allowedChatIds: input.allowedChatIds } : {}),
        approverUserIds: input.approverUserIds,
      };
      await call(agent.gatewaySet("telegram", config));
      await gatewayIndex(c.env).put("telegram", project, name, {
        secretHash: await sha256Hex(config.secretToken),
        botTokenSecret: config.botTokenSecret,
        botFingerprint,
      });
      return c.json(telegramView(config, true, telegramWebhookPath(project, name)));
    },
  )
  .get("/:name/gateways/telegram", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const config = (await call(
      (await agentStub(c.env, project, name)).gatewayGet("telegram"),
    )) as TelegramConfig | null;
    if (!config) throw noGateway("telegram", name);
    return c.json(
      telegramView(config, await botPresent(c.env, project, config.botTokenSecret), telegramWebhookPath(project, name)),
    );
  })
  .delete("/:name/gateways/telegram", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    if (!(await call((await agentStub(c.env, project, name)).gatewayRemove("telegram"))))
      throw noGateway("telegram", name);
    await gatewayIndex(c.env).put("telegram", project, name, null);
    return c.body(null, 204);
  })
  .post(
    "/:name/gateways/telegram/webhook",
    scope("admin"),
    valid("param", nameParam),
    valid("json", telegramWebhookInputSchema),
    async (c) => {
      const project = c.get("project");
      const { name } = c.req.valid("param");
      const config = (await call(
        (await agentStub(c.env, project, name)).gatewayGet("telegram"),
      )) as TelegramConfig | null;
      if (!config) throw noGateway("telegram", name);
      const production = deploymentOf(c.env.PANTHEON_ENV) === "production";
      const base = new URL(c.req.valid("json").url);
      if (production && base.protocol !== "https:") {
        throw new PantheonError("validation_failed", "the webhook URL is not valid", {
          details: { issues: [{ path: ["url"], message: "Telegram calls only https URLs" }] },
        });
      }
      const webhookUrl = `${base.origin}${base.pathname.replace(/\/+$/, "")}${telegramWebhookPath(project, name)}`;
      // The agent opens its own project's bot token and calls the Bot API: the worker never holds it.
      await call((await agentStub(c.env, project, name)).telegramSetWebhook(webhookUrl));
      return c.json({ ok: true, webhookUrl });
    },
  )
  .put(
    "/:name/gateways/email",
    scope("admin"),
    valid("param", nameParam),
    valid("json", emailConfigInputSchema),
    async (c) => {
      const project = c.get("project");
      const { name } = c.req.valid("param");
      const config = c.req.valid("json");
      await call((await agentStub(c.env, project, name)).gatewaySet("email", config));
      await gatewayIndex(c.env).put("email", project, name, { allowedSenders: config.allowedSenders });
      return c.json(emailView(config, project, name));
    },
  )
  .get("/:name/gateways/email", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const config = (await call((await agentStub(c.env, project, name)).gatewayGet("email"))) as EmailConfig | null;
    if (!config) throw noGateway("email", name);
    return c.json(emailView(config, project, name));
  })
  .delete("/:name/gateways/email", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    if (!(await call((await agentStub(c.env, project, name)).gatewayRemove("email")))) throw noGateway("email", name);
    await gatewayIndex(c.env).put("email", project, name, null);
    return c.body(null, 204);
  });

/**
 * `GET /api/gateways/telegram` (the deployment admin only): which project's agent owns which bot —
 * the bot token secret's name and its short keyed fingerprint, never the token.
 */
export const telegramOwnerRoutes = new Hono<AppEnv>().get("/telegram", scope("admin"), async (c) => {
  checkDeploymentAdmin(c, "list every project's Telegram bots");
  const bots = (await gatewayIndex(c.env).list("telegram")).map(({ project, agent, entry }) => ({
    project,
    agent,
    botTokenSecret: entry.botTokenSecret ?? null,
    fingerprint: entry.botFingerprint ? shortFingerprint(entry.botFingerprint) : null,
  }));
  return c.json({ bots });
});
