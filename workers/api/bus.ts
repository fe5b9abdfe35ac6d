import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { PantheonError } from "../../core/errors";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";

const conversationParam = lazySchema(() => z.object({ id: z.string().min(1).max(200) }));

/** A run's current status from its agent, or null when the agent or run is gone. */
async function runStatus(env: Env, project: string, agent: string, runId: string): Promise<string | null> {
  const found = await (await agentStub(env, project, agent)).getRun(runId);
  return found.ok ? found.value.run.status : null;
}

/** `GET /api/bus`: pending (sent, not delivered), in-flight and dead-lettered messages per receiving agent. */
export const busRoutes = new Hono<AppEnv>().get("/", scope("admin"), async (c) => {
  const agents = await registryStub(c.env, c.get("project")).busCounts();
  const total = agents.reduce(
    (sum, a) => ({ pending: sum.pending + a.pending, inFlight: sum.inFlight + a.inFlight, dead: sum.dead + a.dead }),
    { pending: 0, inFlight: 0, dead: 0 },
  );
  return c.json({ agents, total });
});

/**
 * `GET /api/conversations/:id`: a delegation chain across agents, in the order it was asked. The id
 * is the id of the run that asked first; each hop has the run its question started and that run's status.
 */
export const conversationRoutes = new Hono<AppEnv>().get(
  "/:id",
  scope("chat"),
  valid("param", conversationParam),
  async (c) => {
    const project = c.get("project");
    const { id } = c.req.valid("param");
    const hops = await registryStub(c.env, project).busConversation(id);
    if (hops.length === 0)
      throw new PantheonError("not_found", `conversation '${id}' does not exist`, { details: { conversation: id } });
    const root = hops[0]!;
    const [rootStatus, ...statuses] = await Promise.all([
      root.depth === 1 ? runStatus(c.env, project, root.from, root.askerRunId) : Promise.resolve(null),
      ...hops.map((hop) => (hop.runId ? runStatus(c.env, project, hop.to, hop.runId) : Promise.resolve(null))),
    ]);
    return c.json({
      conversationId: id,
      root: { agent: root.from, runId: root.askerRunId, status: rootStatus },
      hops: hops.map((hop, i) => ({ ...hop, runStatus: statuses[i] ?? hop.runStatus })),
    });
  },
);
