import type { ActorScript } from "../dsl";
import type { ToolIssue, ToolSpec } from "../tools";
import type { AgentProfile } from "./profile";

/** Parts of a Pantheon agent another format may have no place for (and parts of a file Pantheon has none for). */
export type AgentPart =
  | "talents"
  | "behaviors"
  | "contextSources"
  | "httpTools"
  | "connections"
  | "gates"
  | "approvals"
  | "tools"
  | "permission"
  | "mode"
  | "fields";

/**
 * A whole part left out, by name: `{ part: "behaviors", names: ["digest"], why: "…" }`. It is a
 * `ToolIssue` too (`path`, `message`), so a client that prints warnings line by line prints it.
 */
export interface PartWarning extends ToolIssue {
  part: AgentPart;
  names: string[];
  why: string;
}

export type FormatWarning = ToolIssue | PartWarning;

/** What each part is called in a sentence. */
const partWords: Record<AgentPart, string> = {
  talents: "talents",
  behaviors: "behaviors",
  contextSources: "context sources",
  httpTools: "HTTP tools",
  connections: "connections",
  gates: "gates",
  approvals: "approvals",
  tools: "tools",
  permission: "permissions",
  mode: "mode",
  fields: "fields",
};

/**
 * One part's warning, or none when nothing of it is left out.
 * @example
 * partWarning("behaviors", ["digest"], "$.script.talents", "the OpenAI format has no behaviors")
 * // [{ part: "behaviors", names: ["digest"], why: "…", path: "$.script.talents", message: "behaviors digest left out: the OpenAI format has no behaviors" }]
 */
export function partWarning(part: AgentPart, names: readonly string[], path: string, why: string): PartWarning[] {
  if (!names.length) return [];
  return [{ part, names: [...names], why, path, message: `${partWords[part]} ${names.join(", ")} left out: ${why}` }];
}

/** The formats an agent goes out to, as a sentence names them. */
export const formatLabels = {
  openai: "the OpenAI Agents SDK / Responses format",
  anthropic: "the Anthropic Messages format",
  opencode: "an OpenCode agent file",
} as const;

/**
 * Every part of the agent the format cannot hold, by name: talents and behaviors (its script's
 * work), context sources, HTTP tools (their endpoints), gates, and for the formats without an
 * approval step, the tools that wait for a person. Delegation (`ask_<agent>` tools) is named by the
 * caller, which sees the tools before they are filtered.
 */
export function unheldParts(
  profile: AgentProfile,
  specs: readonly ToolSpec[],
  format: keyof typeof formatLabels,
): PartWarning[] {
  const label = formatLabels[format];
  const script = profile.script as ActorScript | null;
  const talents = script?.talents ?? [];
  const httpTools = specs.filter((s) => s.runtime === "http").map((s) => s.name);
  const approvals = [
    ...new Set([
      ...profile.runtime.approvalRequired,
      ...profile.runtime.httpTools.filter((t) => t.requiresApproval).map((t) => t.name),
    ]),
  ];
  return [
    ...partWarning(
      "talents",
      talents.map((t) => t.name),
      "$.script.talents",
      `${label} has no talents (the script's groups of behaviors)`,
    ),
    ...partWarning(
      "behaviors",
      talents.flatMap((t) => t.behaviors.map((b) => b.name)),
      "$.script.talents",
      `${label} has no behaviors: nothing there runs on a schedule, a trigger or in the background`,
    ),
    ...partWarning(
      "contextSources",
      script?.contextSources ?? [],
      "$.script.contextSources",
      `${label} has no context sources: the agent's memory and documents stay in Pantheon`,
    ),
    ...partWarning(
      "httpTools",
      httpTools,
      "$.tools",
      format === "opencode"
        ? `${label} enables tools by name only: an HTTP tool's endpoint, headers and schema are not in it`
        : `${label} has function tools but no endpoints: they go out as schemas without their endpoint and headers`,
    ),
    ...partWarning(
      "gates",
      profile.runtime.gates.map((g) => g.name),
      "$.runtime.gates",
      `${label} has no gates: nothing there checks a call before it runs`,
    ),
    ...(format === "opencode"
      ? []
      : partWarning(
          "approvals",
          approvals,
          "$.runtime.approvalRequired",
          `${label} has no approval step: these tools would run without a person's approval`,
        )),
  ];
}
