import { routeAgentRequest } from "agents";
import { agentNameSchema, projectNameSchema } from "../core/agents";
import { socketIncarnationHeader, socketTokenHeader } from "../core/auth";
import { PantheonError, unknownAgent } from "../core/errors";
import { checkScope, socketToken } from "./auth";
import type { AppContext } from "./env";
import { agentObjectName, registryStub } from "../durable-objects/stubs";

/** Longer socket URLs answer 400: the SDK keeps the URL with each connection, in at most 16 KiB. */
export const maxSocketUrlLength = 8 * 1024;

const notRoutable = (path: string) =>
  new PantheonError("not_found", `no agent socket at ${path}: connect to /agents/agent-do/<project>.<agent>`, {
    details: { path },
  });

/** The only Durable Object binding reachable from outside; the registry and anything else are not. */
const routable = new WeakMap<Env, Record<string, unknown>>();
function agentBindingOnly(env: Env): Record<string, unknown> {
  let only = routable.get(env);
  if (!only) routable.set(env, (only = { AGENT_DO: env.AGENT_DO }));
  return only;
}

function segment(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * `/agents/agent-do/<project>.<agent>`: an agent's live WebSocket (the agents SDK's routing). The
 * project is the one in the path, and the token must belong to it (or be the admin secret); the
 * agent must exist. The agent treats every client as read-only and tags the socket with the token's
 * id, so revoking the token closes it.
 */
export async function agentSocket(c: AppContext): Promise<Response> {
  const path = new URL(c.req.url).pathname;
  const [prefix, binding, objectName, ...rest] = path.split("/").filter(Boolean);
  if (prefix !== "agents" || binding !== "agent-do" || rest.length > 0) throw notRoutable(path);
  const name = segment(objectName) ?? "";
  const dot = name.indexOf(".");
  const project = name.slice(0, dot);
  const agent = name.slice(dot + 1);
  if (dot < 0 || !projectNameSchema.safeParse(project).success || !agentNameSchema.safeParse(agent).success)
    throw notRoutable(path);

  c.set("project", project);
  // Past the attachment's 16 KiB the upgrade succeeds and the session dies at once (close 1011).
  if (c.req.url.length > maxSocketUrlLength)
    throw new PantheonError("bad_request", `the socket URL is longer than ${maxSocketUrlLength} characters`);
  await socketToken(c);
  checkScope(c, "chat");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    throw new PantheonError("bad_request", "this route only accepts WebSocket upgrades (send 'Upgrade: websocket')");
  }
  const known = await registryStub(c.env, project).getAgent(agent);
  if (!known.ok) throw unknownAgent(agent, project);

  const headers = new Headers(c.req.raw.headers);
  headers.set(socketTokenHeader, c.get("tokenId") ?? "admin");
  // The socket is bound to this creation of the agent: after a deletion it hears nothing of a later one.
  headers.set(socketIncarnationHeader, known.value.incarnation ?? "none");
  const url = new URL(c.req.url);
  url.pathname = `/agents/agent-do/${agentObjectName(project, agent)}`;
  // The SDK keeps each connection's URL in the agent's storage: the token must not be in it.
  url.searchParams.delete("token");
  const response = await routeAgentRequest(
    new Request(url, { method: c.req.method, headers }),
    agentBindingOnly(c.env),
  );
  if (!response) throw notRoutable(path);
  return response;
}
