import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { PantheonError } from "../../core/errors";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { runDoctor } from "./doctor";

/** The server's version, as the health probe and the MCP server report it. */
export const version = "0.1.0";

const echoQuery = lazySchema(() => z.object({ x: z.string().max(256).default("") }));

/**
 * Authenticated health routes. `GET /api/health/echo?x=…` is one bare Durable Object round trip
 * (worker → the project's RegistryDO → back): the baseline the benchmarks divide by.
 * (The unauthenticated liveness probe `GET /api/health` is `livenessRoutes` in ./index.ts, mounted ahead of auth.)
 *
 * @example
 * // curl -H "authorization: Bearer $TOKEN" "$URL/api/health/echo?x=ping"  →  {"echo":"ping"}
 */
export const healthRoutes = new Hono<AppEnv>()
  /** `GET /api/health?detail=1` (admin): the doctor's report (`ok` false when any check is a problem). */
  // Read by hand, not declared: to a client `GET /api/health` stays the one call with no arguments.
  .get("/", scope("admin"), async (c) => {
    if (!["1", "true"].includes(c.req.query("detail") ?? "")) {
      throw new PantheonError("validation_failed", "the query string is not valid", {
        details: {
          issues: [
            {
              path: ["detail"],
              message: "use detail=1 for the doctor's report (or leave it out for the plain health check)",
            },
          ],
        },
      });
    }
    return c.json(await runDoctor(c.env, c.get("project"), version, new URL(c.req.url).origin));
  })
  // A bare round trip through a Durable Object (the benchmarks' baseline); it reads nothing, so any token.
  .get("/echo", scope("chat"), valid("query", echoQuery), async (c) => {
    const echo = await registryStub(c.env, c.get("project")).echo(c.req.valid("query").x);
    return c.json({ echo });
  });
