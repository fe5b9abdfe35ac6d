import type { ActorScript } from "../dsl";
import { defaultAgentRuntime, type AgentProfile } from "./profile";

/**
 * What a script sets on an agent: description, system prompt (from role and description), model,
 * tools, limits, gates and connections. Everything else (HTTP tools, hosts, approvals, rate
 * limits) stays the operator's.
 * @example
 * registry.updateAgent(name, { ...profileFromScript(script, existing.runtime), script, scriptSource });
 */
export function profileFromScript(script: ActorScript, runtime: AgentProfile["runtime"] = defaultAgentRuntime) {
  const who = script.role ? `You are ${script.name}, a ${script.role}.` : `You are ${script.name}.`;
  return {
    description: script.description,
    systemPrompt: script.description ? `${who} ${script.description}` : who,
    model: script.model,
    runtime: {
      ...runtime,
      tools: script.tools,
      limits: script.limits,
      gates: script.gates,
      ...(script.denyTools ? { denyTools: script.denyTools } : {}),
      ...(script.memory ? { memory: script.memory } : {}),
    },
    connections: script.connections,
    // A script that names a role or standing goals sets them; one that does not leaves the operator's.
    ...(script.role !== undefined ? { role: script.role } : {}),
    ...(script.goals !== undefined ? { goals: script.goals } : {}),
  };
}
