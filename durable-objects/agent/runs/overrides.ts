import type { AgentProfile } from "../../../core/agents";
import { PantheonError } from "../../../core/errors";
import { allowedModelsOf } from "../../../core/models";
import type { RunOrigin } from "../../../core/run";
import type { AgentTools } from "./tools";
import type { AgentKv } from "./models";

/**
 * A request's own choices within what the agent allows: another model of its allowed list, and a
 * narrower tool set for a session. Both are kept on the run's record (`origin.model`,
 * `origin.narrowTools`), so a run carried on after an eviction keeps them.
 */

/**
 * The model a request asks for (`provider/model`), checked against the agent's allowed models (its
 * cascade and `model.allowed`): one outside them is a 400 naming the allowed ones.
 * @example
 * requestedModel(profile, "groq/llama-3.1-70b"); // { provider: "groq", name: "llama-3.1-70b" }
 */
export function requestedModel(
  profile: Pick<AgentProfile, "model" | "name">,
  requested: string,
): { provider: string; name: string } {
  const allowed = allowedModelsOf(profile.model);
  const slash = requested.indexOf("/");
  if (slash > 0 && allowed.includes(requested))
    return { provider: requested.slice(0, slash), name: requested.slice(slash + 1) };
  const message = `model '${requested.slice(0, 161)}' is not allowed for agent '${profile.name}': use one of ${allowed.join(", ")} (its cascade and model.allowed)`;
  throw new PantheonError("validation_failed", message, {
    details: { issues: [{ path: ["model"], message }], allowed },
  });
}

/**
 * The agent's profile as one run uses it: the request's model (from the run's record) first, the
 * rest of the agent's cascade behind it. The agent's own model leaves the profile as it is.
 */
export function profileForRun(profile: AgentProfile, origin: Pick<RunOrigin, "model">): AgentProfile {
  const chosen = origin.model;
  if (!chosen || (chosen.provider === profile.model.provider && chosen.name === profile.model.name)) return profile;
  // A model no longer allowed (the agent changed since the run began) is not used: the agent's own answers.
  if (!allowedModelsOf(profile.model).includes(`${chosen.provider}/${chosen.name}`)) return profile;
  const rest = [{ provider: profile.model.provider, name: profile.model.name }, ...(profile.model.cascade ?? [])];
  return { ...profile, model: { ...profile.model, provider: chosen.provider, name: chosen.name, cascade: rest } };
}

/** Tool names a request narrows to: each must be one of the agent's tools, else a 400 naming them. */
export function checkNarrowTools(tools: AgentTools, requested: string[]): string[] {
  const names = tools.specs.map((spec) => spec.name);
  const outside = requested.filter((name) => !names.includes(name));
  if (outside.length) {
    const message = `tool${outside.length > 1 ? "s" : ""} ${outside.map((t) => `'${t}'`).join(", ")} ${outside.length > 1 ? "are" : "is"} not among the agent's tools: a session may only narrow them to some of ${names.join(", ") || "(none)"}`;
    throw new PantheonError("validation_failed", message, {
      details: { issues: [{ path: ["tools"], message }], allowed: names },
    });
  }
  return [...new Set(requested)];
}

/** The agent's tools narrowed to `names` (the allowlist gate then refuses the others). */
export function narrowed(tools: AgentTools, names: string[] | undefined): AgentTools {
  if (!names) return tools;
  return { ...tools, specs: tools.specs.filter((spec) => names.includes(spec.name)) };
}

/**
 * The tools each session narrowed to, kept in the agent's storage (an eviction keeps them) and in
 * memory: a session's first turn in an instance reads its entry once, later turns none.
 */
export function makeSessionTools(kv: AgentKv) {
  const known = new Map<string, string[] | null>();
  return {
    get(sessionId: string): string[] | undefined {
      let tools = known.get(sessionId);
      if (tools === undefined) {
        const stored: string[] | null = kv.get<string[]>(`session-tools/${sessionId}`) ?? null;
        if (known.size >= 1000) known.delete(known.keys().next().value!);
        known.set(sessionId, stored);
        tools = stored;
      }
      return tools ?? undefined;
    },
    set(sessionId: string, tools: string[] | null): void {
      if (tools) kv.put(`session-tools/${sessionId}`, tools);
      else kv.delete(`session-tools/${sessionId}`);
      known.set(sessionId, tools);
    },
    /** The agent is deleted: nothing of its sessions' choices reaches a later agent of the same name. */
    wipe(): void {
      for (const [key] of kv.list({ prefix: "session-tools/" })) kv.delete(key);
      known.clear();
    },
  };
}

export type SessionTools = ReturnType<typeof makeSessionTools>;
