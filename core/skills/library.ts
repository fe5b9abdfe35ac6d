import { parseSkill, parseSkillName, parseSkillResourcePath } from "agents/skills";
import { PantheonError } from "../errors";

/** Bytes of one skill's files together, and files per skill. */
export const maxSkillBytes = 512 * 1024;
export const maxSkillFiles = 100;
/** Skills one project may hold. */
export const maxProjectSkills = 200;

/**
 * A skill as a project keeps it: the Agent Skills format's `SKILL.md` read (its `name`, `description`
 * and instructions), the skills it `requires` (a front-matter list, loaded before it), and its other
 * files by their path in the skill's folder.
 */
export interface StoredSkill {
  name: string;
  description: string;
  requires: string[];
  body: string;
  files: Record<string, string>;
  updatedAt: number;
}

/** What an agent's profile carries of a skill it may load. */
export type SkillEntry = Pick<StoredSkill, "description" | "requires" | "body">;

/** What a listing (and an agent's context, until the skill is chosen) holds of a skill. */
export type SkillSummary = Pick<StoredSkill, "name" | "description" | "requires">;

const invalid = (path: string, message: string) =>
  new PantheonError("validation_failed", `${path}: ${message}`, { details: { issues: [{ path, message }] } });

/**
 * Reads one skill's folder, sent as its files by their path in it (`SKILL.md`, `scripts/stats.ts`…):
 * the front matter parsed by the agents SDK (agents/skills), each other path checked to stay inside
 * the folder (`../../x`, `/etc/x` are refused), `requires` a list of skill names. `at` names the folder
 * in errors (`$.skills["csv-report"]`).
 * @example
 * readSkillFolder({ "SKILL.md": "---\nname: csv-report\ndescription: Report on a CSV\n---\nFirst…" }, "csv-report", "$.skills")
 * // { name: "csv-report", description: "Report on a CSV", requires: [], body: "First…", files: {} }
 */
export function readSkillFolder(
  files: Record<string, string>,
  folder: string,
  at: string,
): Omit<StoredSkill, "updatedAt"> {
  const here = `${at}[${JSON.stringify(folder)}]`;
  const paths = Object.keys(files);
  if (paths.length > maxSkillFiles) throw invalid(here, `at most ${maxSkillFiles} files in a skill`);
  const bytes = paths.reduce((n, path) => n + path.length + (files[path]?.length ?? 0), 0);
  if (bytes > maxSkillBytes) throw invalid(here, `a skill's files together are at most ${maxSkillBytes} bytes`);
  const markdown = files["SKILL.md"];
  if (typeof markdown !== "string")
    throw invalid(here, "a skill's folder holds SKILL.md (front matter with name and description, then instructions)");
  const others: Record<string, string> = {};
  for (const path of paths) {
    if (path === "SKILL.md") continue;
    const checked = parseSkillResourcePath(path);
    if (!checked.ok)
      throw invalid(
        `${here}[${JSON.stringify(path)}]`,
        "a file's path stays inside its skill's folder: relative, without '.' or '..' segments",
      );
    others[checked.value] = files[path]!;
  }
  const parsed = parseSkill(markdown, { directory: folder });
  if (!parsed.ok) throw invalid(`${here}["SKILL.md"]`, parsed.error.message);
  const requires = requiresOf(parsed.value.extraFields.requires, `${here}["SKILL.md"]`);
  return {
    name: parsed.value.name,
    description: parsed.value.description,
    requires,
    body: parsed.value.body,
    files: others,
  };
}

/** `requires: [a, b]` (or one name): each a skill name, the skill itself excluded later by the cycle check. */
function requiresOf(value: unknown, path: string): string[] {
  if (value === undefined) return [];
  const names = Array.isArray(value) ? value : [value];
  return [
    ...new Set(
      names.map((name) => {
        const checked = typeof name === "string" ? parseSkillName(name) : undefined;
        if (!checked?.ok)
          throw invalid(
            path,
            `requires: ${JSON.stringify(name)} is not a skill name (lowercase letters, digits and '-')`,
          );
        return checked.value as string;
      }),
    ),
  ];
}

/**
 * The skills to load for `name`, each after the ones it requires (a depth-first topological order),
 * from a library by name. A skill the library lacks is refused naming who requires it; a cycle is
 * refused naming it (`csv-report → csv-basics → csv-report`).
 * @example
 * loadOrder("report", new Map([["report", { requires: ["basics"] }], ["basics", { requires: [] }]]))
 * // ["basics", "report"]
 */
export function loadOrder(name: string, library: ReadonlyMap<string, Pick<StoredSkill, "requires">>): string[] {
  const order: string[] = [];
  const done = new Set<string>();
  const visit = (skill: string, path: string[]) => {
    if (done.has(skill)) return;
    const at = path.indexOf(skill);
    if (at >= 0)
      throw new PantheonError(
        "conflict",
        `skills require each other in a cycle: ${[...path.slice(at), skill].join(" → ")}`,
        { details: { cycle: [...path.slice(at), skill] } },
      );
    const found = library.get(skill);
    if (!found)
      throw new PantheonError(
        "not_found",
        path.length
          ? `skill '${path.at(-1)}' requires '${skill}', which the project's library does not hold`
          : `no skill '${skill}' in the project's library`,
        { details: { skill } },
      );
    for (const required of found.requires) visit(required, [...path, skill]);
    done.add(skill);
    order.push(skill);
  };
  visit(name, []);
  return order;
}
