import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { lazySchema } from "../../../core/lazy-schema";
import { agentNameSchema, projectNameSchema } from "../../../core/agents";
import { sha256Hex, timingSafeEqual } from "../../../core/auth";
import { PantheonError } from "../../../core/errors";
import { telegramUpdateSchema } from "../../../core/gateways";
import type { AppEnv } from "../../env";
import { agentStub, call } from "../../../durable-objects/stubs";
import { checkJsonBody, parseOrThrow, valid } from "../../validation";
import { gatewayIndex } from "./index-store";

/** Telegram's updates are small; anything larger is refused before it is read. */
export const maxUpdateBytes = 64 * 1024;

const params = lazySchema(() => z.object({ project: projectNameSchema, agent: agentNameSchema }));
const wrongSecret = () =>
  new PantheonError("unauthorized", "the X-Telegram-Bot-Api-Secret-Token header is missing or wrong");
/** Compared against when no gateway exists, so an unknown agent costs the same as a wrong secret. */
const nothing = "0".repeat(64);

/**
 * `POST /gateways/telegram/:project/:agent`: the Telegram webhook of one agent. Public (Telegram
 * sends no bearer token): authenticated by the `X-Telegram-Bot-Api-Secret-Token` header, compared in
 * constant time (as SHA-256 digests) with the secret the operator's configuration set. An unknown
 * agent, an agent without a Telegram gateway and a wrong or missing header all answer the same 401,
 * before the body is read and before any agent is woken. A verified update goes to the agent, which
 * answers at once and runs in the background.
 */
export const telegramWebhookRoutes = new Hono<AppEnv>().post(
  "/telegram/:project/:agent",
  bodyLimit({
    maxSize: maxUpdateBytes,
    onError: () => {
      throw new PantheonError("payload_too_large", `a Telegram update is at most ${maxUpdateBytes / 1024} KiB`);
    },
  }),
  valid("param", params),
  async (c) => {
    const { project, agent } = c.req.valid("param");
    const presented = c.req.header("x-telegram-bot-api-secret-token") ?? "";
    const entry = await gatewayIndex(c.env).get("telegram", project, agent);
    const matches = timingSafeEqual(await sha256Hex(presented), entry?.secretHash ?? nothing);
    if (!presented || !entry || !matches) throw wrongSecret();

    if (!(c.req.header("content-type") ?? "").includes("application/json"))
      throw new PantheonError("unsupported_media_type", "a Telegram update is JSON ('Content-Type: application/json')");
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new PantheonError("bad_request", "the body is not valid JSON");
    }
    // Before the schema and the RPC to the agent, both of which recurse: a body nested 10,000 deep was a 500.
    checkJsonBody(body, "update");
    const update = parseOrThrow(telegramUpdateSchema, body, "update");
    const result = await call((await agentStub(c.env, project, agent)).telegramUpdate(update));
    return c.json({ ok: true, ...result });
  },
);
