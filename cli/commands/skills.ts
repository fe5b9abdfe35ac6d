// `pantheon skills add | list | remove`: the project's skill library (POST /api/projects/:slug/skills).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { UsageError } from "../client.ts";
import { text, type Command, type Context } from "../command.ts";
import { oneLine, printJson, table } from "../format.ts";
import { need } from "../arguments.ts";

const current = (context: Context) => text(context.values, "project") ?? context.config.project ?? "default";
const skillsPath = (slug: string) => `/api/projects/${encodeURIComponent(slug)}/skills`;

interface SkillView {
  name: string;
  description: string;
  requires: string[];
}

/** A skill folder's files by their path in it (`/`-separated), dot-files left out. */
function filesOf(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".")) continue;
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(folder, path).split(sep).join("/")] = readFileSync(path, "utf8");
    }
  };
  walk(folder);
  return out;
}

/** A folder with SKILL.md is one skill; otherwise each of its folders that has one is. */
function skillFolders(folder: string): Record<string, Record<string, string>> {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UsageError(
      `'${folder}' is not a folder: name a skill's folder (with SKILL.md) or a folder of them`,
      "skills",
    );
  if (existsSync(join(folder, "SKILL.md"))) return { [basename(folder)]: filesOf(folder) };
  const skills: Record<string, Record<string, string>> = {};
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory() && existsSync(join(path, "SKILL.md"))) skills[entry] = filesOf(path);
  }
  if (!Object.keys(skills).length)
    throw new UsageError(`no SKILL.md in '${folder}' or in its folders: a skill is a folder with SKILL.md`, "skills");
  return skills;
}

export const skills: Command = {
  name: "skills",
  summary: "the project's skill library (Agent Skills folders with SKILL.md)",
  actions: [
    {
      name: "add",
      summary: "skills from a folder with SKILL.md, or from each such folder in it (again = replaced)",
      usage: ["<folder>"],
      async run(context) {
        const folder = need(context.args, 0, "skill folder", "skills");
        const body = await context.client.request<{ skills: SkillView[] }>("POST", skillsPath(current(context)), {
          json: { skills: skillFolders(folder) },
        });
        if (context.json) return printJson(body);
        for (const skill of body.skills)
          console.log(
            `Saved skill ${skill.name}${skill.requires.length ? ` (requires ${skill.requires.join(", ")})` : ""}.`,
          );
      },
    },
    {
      name: "list",
      summary: "the project's skills: name, what each requires, description",
      usage: [""],
      async run(context) {
        const body = await context.client.request<{ skills: SkillView[] }>("GET", skillsPath(current(context)));
        if (context.json) return printJson(body);
        if (!body.skills.length) return console.log("No skills. Add some with: pantheon skills add <folder>");
        console.log(
          table(
            ["NAME", "REQUIRES", "DESCRIPTION"],
            body.skills.map((s) => [s.name, s.requires.join(",") || "(none)", oneLine(s.description, 60)]),
          ),
        );
      },
    },
    {
      name: "remove",
      summary: "a skill no other skill requires",
      usage: ["<name>"],
      async run(context) {
        const name = need(context.args, 0, "skill's name", "skills");
        await context.client.request("DELETE", `${skillsPath(current(context))}/${encodeURIComponent(name)}`);
        if (!context.json) console.log(`Removed skill ${name}.`);
      },
    },
  ],
};
