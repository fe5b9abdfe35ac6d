import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { sha256Hex, timingSafeEqual } from "../core/auth";
import { projectNameSchema } from "../core/agents";
import { PantheonError } from "../core/errors";
import type { AppContext, AppEnv } from "./env";
import { registryStub } from "./stubs";

/** The project of a request: `X-Pantheon-Project` header or `?project=`, default `default`. */
export const projectMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  const project = c.req.header("x-pantheon-project") ?? c.req.query("project") ?? "default";
  if (!projectNameSchema.safeParse(project).success) {
    throw new PantheonError("validation_failed", "the project name is not valid", {
      details: { issues: [{ path: ["X-Pantheon-Project"], message: "must be a lower-case slug" }] },
    });
  }
  c.set("project", project);
  await next();
};

/** True for the admin token (the `PANTHEON_ADMIN_TOKEN` secret) or an API token of the project. */
async function verify(token: string, c: AppContext): Promise<boolean> {
  const admin = c.env.PANTHEON_ADMIN_TOKEN;
  if (admin && timingSafeEqual(token, admin)) {
    c.set("principal", "admin");
    return true;
  }
  if (!token.startsWith("pt_")) return false;
  const found = await registryStub(c.env, c.get("project")).verifyTokenHash(await sha256Hex(token));
  if (found) c.set("principal", `token:${found.name}`);
  return found !== null;
}

const bearer: MiddlewareHandler<AppEnv> = bearerAuth({ verifyToken: verify });

/**
 * Bearer-token auth (Hono's own middleware) for the HTTP API. Hono answers 400 for an
 * Authorization header of another scheme; to a client that is a wrong token, so 401.
 */
export const apiAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  try {
    return await bearer(c, next);
  } catch (error) {
    if (error instanceof HTTPException && error.status === 400 && !c.get("principal")) throw new HTTPException(401);
    throw error;
  }
};

/**
 * WebSocket upgrades cannot carry an Authorization header from a browser, so the agent
 * WebSocket route also accepts `?token=`.
 */
export const socketAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("authorization");
  const token = header?.startsWith("Bearer ") ? header.slice(7) : c.req.query("token");
  if (!token || !(await verify(token, c))) throw new HTTPException(401);
  await next();
};
