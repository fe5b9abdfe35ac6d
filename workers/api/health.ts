import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../env";
import { registryStub } from "../stubs";
import { valid } from "../validation";
import { runDoctor } from "./doctor";
// Read at request time only: app.ts imports this module.
import { version } from "../app";

const echoQuery = z.object({ x: z.string().max(256).default("") });
const detailQuery = z.object({ detail: z.enum(["1", "true"], { error: "use detail=1 for the doctor's report (or leave it out for the plain health check)" }) });

/**
 * Authenticated health routes. `GET /api/health/echo?x=…` is one bare Durable Object round trip
 * (worker → the project's RegistryDO → back): the baseline the benchmarks divide by.
 * (The unauthenticated liveness probe `GET /api/health` is mounted in app.ts ahead of auth.)
 *
 * @example
 * // curl -H "authorization: Bearer $TOKEN" "$URL/api/health/echo?x=ping"  →  {"echo":"ping"}
 */
export const healthRoutes = new Hono<AppEnv>()
  /** `GET /api/health?detail=1` (admin): the doctor's report (`ok` false when any check is a problem). */
  .get("/", valid("query", detailQuery), async (c) => c.json(await runDoctor(c.env, c.get("project"), version)))
  .get("/echo", valid("query", echoQuery), async (c) => {
  const echo = await registryStub(c.env, c.get("project")).echo(c.req.valid("query").x);
  return c.json({ echo });
});
