// One definition of an agent: every field it has, once, and what each door that carries an agent does
// with it. A door either carries a field (the same value comes out the other side) or names it in a
// warning when the agent has it; the format exports derive those warnings from here (unheldFields),
// and test/interop/agent-definition.test.ts holds the declaration equal to the schemas and each door
// to its declaration. Adding a field to the profile, its model or its runtime fails the typecheck
// here until every door is declared for it.
import type { ModelSettings } from "../run/limits";
import { formatLabels, partWarning, type AgentPart, type PartWarning } from "./lost-parts";
import type { AgentProfile, AgentRuntime } from "./profile";

/** The doors an agent goes through and comes back from: a project file, a snapshot, and the three formats. */
export const agentDoors = ["projectFile", "snapshot", "openai", "anthropic", "opencode"] as const;
export type AgentDoor = (typeof agentDoors)[number];
export type FormatDoor = keyof typeof formatLabels;

/**
 * What a door does with a field: carries it, or warns (`why`, said after the format's name); a
 * warning may be one of the named parts the format already reports (`part`, e.g. the gates).
 * `except` names keys of an object field the format does carry (OpenCode's `maxSteps` of the limits).
 */
export type Carriage = "carries" | { warns: string; part?: AgentPart; except?: readonly string[] };

/**
 * Where a view shows a field: `shows`, or where a person finds it instead
 * (`pantheon agents show --json`, another page of the PWA).
 */
export type Shown = "shows" | { elsewhere: string };

export interface FieldDeclaration {
  /** What the field is, in a sentence's words. */
  what: string;
  doors: Record<AgentDoor, Carriage>;
  /**
   * `pantheon agents show` (its table, derived from this: ./views.ts; `--json` prints every field)
   * and the PWA's agent page (each field it shows is marked `data-field="<path>"`:
   * test/browser/agent-page.spec.mjs finds each one declared `shows` there, and none declared
   * elsewhere). The API answers every field of the profile.
   */
  views: { cliShow: Shown; pwaPage: Shown };
}

const json: Shown = { elsewhere: "pantheon agents show --json" };
const settingsPage: Shown = { elsewhere: "the agent's settings (GET /api/agents/:name)" };

/**
 * Held by Pantheon's own doors (a project file, a snapshot), warned by every other format; `part`
 * when the formats already report it as one of their named parts.
 */
function pantheonOnly(
  what: string,
  why: string,
  views: FieldDeclaration["views"] = { cliShow: json, pwaPage: settingsPage },
  part?: AgentPart,
) {
  const warns = part ? { warns: why, part } : { warns: why };
  return {
    what,
    doors: { projectFile: "carries", snapshot: "carries", openai: warns, anthropic: warns, opencode: warns },
    views,
  } satisfies FieldDeclaration;
}

/** Carried by every door. */
function everywhere(what: string, views: FieldDeclaration["views"]): FieldDeclaration {
  return {
    what,
    doors: {
      projectFile: "carries",
      snapshot: "carries",
      openai: "carries",
      anthropic: "carries",
      opencode: "carries",
    },
    views,
  };
}

/** The agent's own fields (its model and runtime are declared key by key below). */
export const profileFields = {
  description: {
    what: "description",
    doors: {
      projectFile: "carries",
      snapshot: "carries",
      openai: "carries",
      anthropic: { warns: "has no place for the agent's description" },
      opencode: "carries",
    },
    views: { cliShow: "shows", pwaPage: "shows" },
  },
  systemPrompt: everywhere("system prompt", { cliShow: "shows", pwaPage: "shows" }),
  role: pantheonOnly("role", "has no role (it is named in the system prompt only)", {
    cliShow: "shows",
    pwaPage: "shows",
  }),
  goals: pantheonOnly("standing goals", "has no standing goals: nothing there works toward them on a tick", {
    cliShow: "shows",
    pwaPage: "shows",
  }),
  script: {
    what: "script (talents, behaviors, schedules, workflows, children and their supervision)",
    doors: {
      projectFile: "carries",
      snapshot: "carries",
      // The script's work is named by the talents and behaviors warnings; the rest of it is the other fields.
      openai: { warns: "has no script", part: "behaviors" },
      anthropic: { warns: "has no script", part: "behaviors" },
      opencode: { warns: "has no script", part: "behaviors" },
    },
    views: { cliShow: "shows", pwaPage: "shows" },
  },
  connections: {
    what: "connections",
    doors: {
      projectFile: "carries",
      // A restore keeps the connections to agents the target project has, each other one named in a warning.
      snapshot: "carries",
      openai: { warns: "has no connections", part: "connections" },
      anthropic: { warns: "has no connections", part: "connections" },
      opencode: { warns: "has no connections", part: "connections" },
    },
    views: { cliShow: "shows", pwaPage: "shows" },
  },
} satisfies Record<string, FieldDeclaration>;

const projectExport: Shown = { elsewhere: "the project file (pantheon project export)" };

/**
 * What the project holds of an agent beside its profile: a project file's `name`, the agent's display
 * name (kept by the registry as it imports a file; `GET /api/agents/:name` does not answer it).
 */
export const entryFields = {
  displayName: {
    what: "display name (a project file's `name`)",
    doors: {
      projectFile: "carries",
      // Under its own name; restored under a new name it stays the original's, said in a warning.
      snapshot: "carries",
      openai: { warns: "has no display name: its `name` is the agent's name" },
      anthropic: { warns: "has no name for the agent" },
      opencode: { warns: "has no display name: the file is named by the agent's name" },
    },
    views: { cliShow: projectExport, pwaPage: projectExport },
  },
} satisfies Record<string, FieldDeclaration>;

/** An agent as a door takes it: its profile, and its display name where the door has read it. */
export type AgentDefinition = AgentProfile & { displayName?: string | null };

/**
 * What a profile holds that is not its definition: who and when, and what the registry fills in when
 * it hands the profile out. No door carries them; each says why.
 */
export const recordFields = {
  name: "the agent's name is the door's own (the key of a project file, the name of a restore or an import)",
  parent: "an imported or restored agent is its own: its parent, if any, is whoever spawns it there",
  archivedAt: "an imported or restored agent is live",
  configuredBy: "the person who imports or restores the agent configures it",
  createdAt: "made anew where it is imported",
  updatedAt: "made anew where it is imported",
  incarnation: "drawn anew for every agent made",
  askedBy: "follows from the other agents' connections",
  connectionDescriptions: "follows from the connected agents",
  providers: "the project's providers, which the model names (a restore needs them in the target project)",
  projectQuota: "the project's caps, not the agent's",
  skillLibrary:
    "the project's skills its runtime.skills name: no door carries the library yet (pantheon skills add imports it where the agent goes)",
  scriptTools:
    "the project's script tools, which its tools name: a project file and a snapshot carry them beside the agent (scriptTools), restored where the target project lacks them",
  model: "declared setting by setting (modelFields)",
  runtime: "declared setting by setting (runtimeFields)",
} satisfies Record<Exclude<keyof AgentProfile, keyof typeof profileFields>, string>;

const noModelSetting = (what: string) => pantheonOnly(`the model's ${what}`, `has no ${what}`);

/** The model's settings. */
export const modelFields: Record<keyof ModelSettings, FieldDeclaration> = {
  provider: everywhere("model's provider", { cliShow: "shows", pwaPage: "shows" }),
  name: everywhere("model", { cliShow: "shows", pwaPage: "shows" }),
  temperature: everywhere("temperature", { cliShow: json, pwaPage: settingsPage }),
  maxTokens: {
    ...everywhere("output token limit", { cliShow: json, pwaPage: settingsPage }),
    doors: {
      projectFile: "carries",
      snapshot: "carries",
      openai: "carries",
      anthropic: "carries",
      opencode: { warns: "has no output token limit" },
    },
  },
  fallback: noModelSetting("fallback model"),
  topP: noModelSetting("nucleus sampling (top_p)"),
  cascade: noModelSetting("cascade of models"),
  allowed: noModelSetting("models a request may pick"),
  breaker: noModelSetting("circuit breaker"),
};

const noRuntime = (what: string, why: string, part?: AgentPart) => pantheonOnly(what, why, undefined, part);

/** How it runs. */
export const runtimeFields: Record<keyof AgentRuntime, FieldDeclaration> = {
  tools: everywhere("tools", { cliShow: "shows", pwaPage: settingsPage }),
  approvalRequired: {
    ...everywhere("tools that wait for approval", { cliShow: json, pwaPage: settingsPage }),
    doors: {
      projectFile: "carries",
      snapshot: "carries",
      openai: { warns: "has no approval step", part: "approvals" },
      anthropic: { warns: "has no approval step", part: "approvals" },
      opencode: "carries",
    },
  },
  allowHosts: noRuntime("hosts it may reach", "has no outbound allowlist"),
  limits: {
    ...noRuntime("limits", "has no limits of a run or caps of a day"),
    doors: {
      projectFile: "carries",
      snapshot: "carries",
      openai: { warns: "has no limits of a run or caps of a day" },
      anthropic: { warns: "has no limits of a run or caps of a day" },
      opencode: { warns: "has only maxSteps of the limits", except: ["maxSteps"] },
    },
  },
  gates: noRuntime("gates", "has no gates", "gates"),
  rateLimits: noRuntime("rate limits", "has no rate limits"),
  httpTools: noRuntime("HTTP tools", "has no endpoints", "httpTools"),
  a2aAgents: noRuntime("A2A agents", "has no A2A agents", "connections"),
  beyondScope: noRuntime("answer to a call beyond the caller's scope", "has no scopes"),
  denyTools: noRuntime("tools it never gets", "has no deny list"),
  memory: noRuntime("memory policy", "has no memory policy"),
  skills: noRuntime("skills it may use", "has no skill library"),
};

/** Every declared field by its path in the agent (`goals`, `model.fallback`, `runtime.limits`, `displayName`). */
export function declaredFields(): Array<[path: string, declaration: FieldDeclaration]> {
  return [
    ...Object.entries(profileFields as Record<string, FieldDeclaration>),
    ...Object.entries(entryFields as Record<string, FieldDeclaration>),
    ...Object.entries(modelFields).map(([k, d]) => [`model.${k}`, d] as [string, FieldDeclaration]),
    ...Object.entries(runtimeFields).map(([k, d]) => [`runtime.${k}`, d] as [string, FieldDeclaration]),
  ];
}

/** The profile's value at a declared path. */
export function fieldValue(profile: Pick<AgentProfile, "model" | "runtime">, path: string): unknown {
  const [head, key] = path.split(".") as [string, string | undefined];
  const top = (profile as unknown as Record<string, unknown>)[head];
  return key === undefined ? top : (top as Record<string, unknown> | undefined)?.[key];
}

/** Keys of a set value a warning names: an object's keys (less those carried), else the field itself. */
function setNames(value: unknown, path: string, except: readonly string[] = []): string[] {
  if (value === undefined || value === null || value === "" || value === false) return [];
  if (Array.isArray(value)) return value.length ? [path] : [];
  if (typeof value === "object")
    return Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined && !except.includes(k))
      .map((k) => `${path}.${k}`);
  return [path];
}

/**
 * A warning for every field the agent has that the format cannot hold, by its path, from the
 * declaration (fields a named part already reports — gates, approvals, behaviors… — are left to it).
 * @example
 * unheldFields({ …profile, goals: ["Ship it"] }, "openai")
 * // [{ part: "fields", names: ["goals"], why: "the OpenAI Agents SDK / Responses format has no standing goals: …", … }]
 */
export function unheldFields(profile: AgentDefinition, format: FormatDoor): PartWarning[] {
  const label = formatLabels[format];
  return declaredFields().flatMap(([path, declaration]) => {
    const door = declaration.doors[format];
    if (door === "carries" || door.part) return [];
    const names = setNames(fieldValue(profile, path), path, door.except);
    return partWarning("fields", names, `$.${path}`, `${label} ${door.warns}`);
  });
}
