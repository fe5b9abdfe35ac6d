/**
 * The model settings a project may set for itself, as project secrets: its own provider keys, and
 * an OpenAI-compatible server's base URL. Used only for that project's agents' model calls — never
 * by a tool, which may name none of them — and where a project sets none the deployment's answer.
 */
export const projectModelSettings = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"] as const;

export type ProjectModelSetting = (typeof projectModelSettings)[number];

/** Whether `name` is a model setting (a project may set it; no tool ever receives it). */
export function isModelSetting(name: string): name is ProjectModelSetting {
  return (projectModelSettings as readonly string[]).includes(name);
}

/** The settings each provider reads. */
const settingsOfProvider: Record<string, readonly ProjectModelSetting[]> = {
  openai: ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
  anthropic: ["ANTHROPIC_API_KEY"],
};

/**
 * The model settings an agent's model (its cascade and its fallback too) read: what its agent loads from the
 * project, and whose change it must hear of.
 * @example
 * modelSettingsOf({ provider: "openai", name: "gpt-4o", fallback: { provider: "anthropic", name: "claude-haiku-4-5" } });
 * // ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"]
 * modelSettingsOf({ provider: "offline", name: "offline" }); // []
 */
export function modelSettingsOf(model: {
  provider: string;
  cascade?: readonly { provider: string }[] | undefined;
  fallback?: { provider: string } | undefined;
}): ProjectModelSetting[] {
  // Every model the agent may call: its own, each of its cascade, its fallback.
  const providers = [model.provider, ...(model.cascade ?? []).map((ref) => ref.provider), model.fallback?.provider];
  return [...new Set(providers.flatMap((provider) => (provider ? (settingsOfProvider[provider] ?? []) : [])))];
}

/** Which providers the project answers with its own settings (presence only: the facts resolveModel reads). */
export interface ProjectModelFacts {
  openai: boolean;
  anthropic: boolean;
}

/**
 * Presence of the project's own model settings, from the names it has: a project key or base URL
 * for OpenAI means the deployment's OpenAI key and URL are not used for that project.
 * @example
 * projectModelFacts(["OPENAI_API_KEY", "AIRTABLE_KEY"]); // { openai: true, anthropic: false }
 */
export function projectModelFacts(names: Iterable<string>): ProjectModelFacts {
  const has = new Set(names);
  return { openai: has.has("OPENAI_API_KEY") || has.has("OPENAI_BASE_URL"), anthropic: has.has("ANTHROPIC_API_KEY") };
}
