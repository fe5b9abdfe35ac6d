import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { agentNameSchema } from "../../core/agents";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";

const connectionsBody = lazySchema(() => z.strictObject({ connections: z.array(agentNameSchema).max(64) }));

/**
 * `PUT /api/agents/:name/connections` `{ connections: ["airtable", …] }`: whom the agent may ask.
 * Each must be another existing agent (else 400 naming it; the agent itself is refused too). The registry is updated and the profile
 * pushed to the agent, so a removed connection is refused from the next request on; the agents added
 * or dropped get theirs too (their `askedBy`, checked where a request is received).
 */
export const connectionRoutes = new Hono<AppEnv>()
  .get("/:name/connections", scope("admin"), valid("param", nameParam), async (c) => {
    const profile = await call(registryStub(c.env, c.get("project")).getAgent(c.req.valid("param").name));
    return c.json({ connections: profile.connections });
  })
  .put("/:name/connections", scope("admin"), valid("param", nameParam), valid("json", connectionsBody), async (c) => {
    const project = c.get("project");
    const registry = registryStub(c.env, project);
    const name = c.req.valid("param").name;
    const before = await call(registry.getAgent(name));
    const profile = await call(registry.setConnections(name, c.req.valid("json").connections));
    await (await agentStub(c.env, project, profile.name)).configure(profile);
    // Each agent added or dropped holds who may ask it (`askedBy`) and admits requests from that.
    const changed = [
      ...before.connections.filter((n) => !profile.connections.includes(n)),
      ...profile.connections.filter((n) => !before.connections.includes(n)),
    ];
    await Promise.all(
      changed.map(async (target) => {
        const got = await registry.getAgent(target);
        if (got.ok) await (await agentStub(c.env, project, target)).configure(got.value);
      }),
    );
    return c.json({ name: profile.name, connections: profile.connections });
  });
