import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { grants, sha256Hex, timingSafeEqual, type RunPrincipal, type Scope } from "../core/auth";
import { projectNameSchema } from "../core/agents";
import { PantheonError } from "../core/errors";
import type { AppContext, AppEnv } from "./env";
import { registryStub } from "../durable-objects/stubs";

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

/**
 * True for the admin secret (`PANTHEON_ADMIN_TOKEN`, scope admin in every project) or an API token
 * of the request's project (a plain one or a person's device token); sets who is calling and what
 * they may do.
 */
export async function verifyToken(token: string, c: AppContext): Promise<boolean> {
  const admin = c.env.PANTHEON_ADMIN_TOKEN;
  if (admin && timingSafeEqual(token, admin)) {
    c.set("principal", "admin");
    c.set("scope", "admin");
    c.set("tokenId", null);
    c.set("person", null);
    return true;
  }
  if (!token.startsWith("pt_")) return false;
  const found = await registryStub(c.env, c.get("project")).verifyTokenHash(await sha256Hex(token));
  if (!found) return false;
  // A person's device token acts as the person (their name on comments, approvals, answers and
  // messages); a plain token as `token:<name>`. Person names hold no ':' and are never `admin`.
  c.set("principal", found.person ?? `token:${found.name}`);
  c.set("scope", found.scope);
  c.set("tokenId", found.id);
  c.set("person", found.person);
  return true;
}

const bearer: MiddlewareHandler<AppEnv> = bearerAuth({ verifyToken });

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

/** Refuses (403, naming the scope needed) a token whose scope does not include `need`. */
export function checkScope(c: AppContext, need: Scope): void {
  const have = c.get("scope");
  if (!grants(have, need)) {
    throw new PantheonError("forbidden", `this needs a token with the '${need}' scope; this token has '${have}'`, {
      details: { needed: need, scope: have },
    });
  }
  c.set("scopeChecked", true);
}

/** Middleware form of `checkScope`. */
export const requireScope =
  (need: Scope): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    checkScope(c, need);
    await next();
  };

/**
 * WebSocket upgrades cannot carry an Authorization header from a browser, so sockets also accept
 * `?token=`. The project is the one the caller names; `agentSocket` checks it against the path.
 */
export async function socketToken(c: AppContext): Promise<void> {
  const header = c.req.header("authorization");
  const token = header?.startsWith("Bearer ") ? header.slice(7) : c.req.query("token");
  if (!token || !(await verifyToken(token, c))) throw new HTTPException(401);
}

/**
 * Whom a run started by this request acts for: the token (its id, scope and name), or the admin
 * secret. Every door that starts a run or calls a tool passes it (DESIGN.md, security model).
 * @example
 * await call(agent.chat({ content, principal: runPrincipal(c) }));
 */
export function runPrincipal(c: AppContext, via?: string): RunPrincipal {
  const name = c.get("principal");
  return { id: c.get("tokenId") ?? "admin", scope: c.get("scope"), name: via ? `${name} via ${via}` : name };
}
