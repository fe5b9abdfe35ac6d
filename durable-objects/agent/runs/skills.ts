import type { AgentProfile } from "../../../core/agents";
import { isPantheonError } from "../../../core/errors";
import { loadOrder } from "../../../core/skills";
import type { ToolSource } from "./tools";

/** The one tool that loads a skill: its name is what the model calls. */
export const useSkillTool = "use_skill";

/**
 * `use_skill`, for an agent whose `runtime.skills` name skills of the project's library (its profile
 * carries them). Only each skill's name and description sit in the context — in this tool's
 * description — until the model loads one; then the call answers its instructions, after those of
 * the skills it requires, each once.
 * @example
 * skillToolSource(profile).specs[0]?.description // "Load a skill's instructions … - csv-report: Report on a CSV's columns"
 */
export function skillToolSource(profile: Pick<AgentProfile, "runtime" | "skillLibrary">): ToolSource {
  const library = new Map(Object.entries(profile.skillLibrary ?? {}));
  const offered = (profile.runtime.skills ?? []).filter((name) => library.has(name));
  if (!offered.length) return { specs: [], implementations: {} };
  const listing = offered.map((name) => `- ${name}: ${library.get(name)!.description}`).join("\n");
  return {
    specs: [
      {
        name: useSkillTool,
        description: `Load a skill's instructions before doing what it is for, then follow them. The skills:\n${listing}`,
        parameters: {
          type: "object",
          properties: { name: { type: "string", enum: offered, description: "the skill's name" } },
          required: ["name"],
          additionalProperties: false,
        },
        runtime: "builtin",
        idempotent: true,
      },
    ],
    implementations: {
      [useSkillTool]: async (args) => {
        const name = String(args.name ?? "");
        if (!offered.includes(name))
          throw new Error(`no skill '${name}' for this agent: its skills are ${offered.join(", ")}`);
        let order: string[];
        try {
          order = loadOrder(name, library);
        } catch (error) {
          if (isPantheonError(error)) throw new Error(error.message);
          throw error;
        }
        return order.map((skill) => `# Skill: ${skill}\n\n${library.get(skill)!.body.trim()}`).join("\n\n");
      },
    },
  };
}
