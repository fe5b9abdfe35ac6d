import type { AgentDO } from "../../durable-objects/agent/agent-do";
import { call, type Remote } from "../../durable-objects/stubs";

/**
 * The agent's session for a protocol's own conversation id (OpenAI's `user`, an AG-UI thread, ...):
 * the session with that id, or else one titled `<protocol>:<id>`, made on first use.
 * @example
 * const session = await sessionFor(agent, "agui", input.threadId); // the same session on every turn of the thread
 */
export async function sessionFor(agent: Remote<AgentDO>, protocol: string, id: string): Promise<string> {
  const sessions = await call(agent.listSessions());
  const title = `${protocol}:${id}`;
  const found = sessions.find((s) => s.id === id) ?? sessions.find((s) => s.title === title);
  return (found ?? (await call(agent.createSession(title)))).id;
}
