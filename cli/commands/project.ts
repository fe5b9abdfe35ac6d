// `pantheon project create | list | switch | delete | import | export | forge` (admin): projects as
// things, and project files (`agents.json`) in and out. Routes of the shared contract
// (POST/GET /api/projects, DELETE /api/projects/:slug, …/import, …/export).
import { UsageError } from "../client.ts";
import { text, type Command, type Context } from "../command.ts";
import { configPath, readSaved, writeSaved } from "../config.ts";
import { note, plural, printJson, table, time } from "../format.ts";
import { need, output, readJson } from "../arguments.ts";
import { forge } from "./forge.ts";

export interface ProjectView {
  slug: string;
  title: string;
  createdAt: number;
  agents: number;
}

export interface ImportReport {
  changed: boolean;
  agents: { created: string[]; updated: string[]; unchanged: string[] };
  connections: { added: string[]; removed: string[] };
  warnings: { path: string; message: string }[];
}

const current = (context: Context) => text(context.values, "project") ?? context.config.project ?? "default";
const slugPath = (slug: string) => `/api/projects/${encodeURIComponent(slug)}`;

export const project: Command = {
  name: "project",
  summary: "create, list, switch and delete projects; import and export project files (agents.json); its forge",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "every project with its agent count (the current one marked *)",
      usage: [""],
      async run(context) {
        const { projects } = await context.client.request<{ projects: ProjectView[] }>("GET", "/api/projects");
        if (context.json) return printJson({ projects });
        const here = current(context);
        console.log(
          table(
            ["", "SLUG", "TITLE", "AGENTS", "CREATED"],
            projects.map((p) => [p.slug === here ? "*" : "", p.slug, p.title, p.agents, time(p.createdAt)]),
          ),
        );
      },
    },
    {
      name: "create",
      summary: "a new, empty project",
      usage: ["<slug> [--title <text>]"],
      options: { title: { type: "string", help: "a human title (default: the slug)" } },
      async run({ client: { request }, args, values, json }) {
        const slug = need(args, 0, "project to create (a lower-case slug)", "project");
        const title = text(values, "title");
        const { project: made } = await request<{ project: ProjectView }>("POST", "/api/projects", {
          json: { slug, ...(title ? { title } : {}) },
        });
        if (json) return printJson({ project: made });
        console.log(`Created project ${made.slug}. Use it: pantheon project switch ${made.slug}`);
      },
    },
    {
      name: "switch",
      summary: "make a project the current one for later commands (saved with the login)",
      usage: ["<slug>"],
      async run({ client: { request, url }, config, args, json }) {
        const slug = need(args, 0, "project to switch to", "project");
        const { projects } = await request<{ projects: ProjectView[] }>("GET", "/api/projects");
        const found = projects.find((p) => p.slug === slug);
        if (!found)
          throw new UsageError(
            `project '${slug}' does not exist; there are: ${projects.map((p) => p.slug).join(", ")}`,
            "project",
          );
        const saved = readSaved();
        // The saved token stays only when it is for this same server.
        const token =
          saved && saved.url === url ? saved.token : config.tokenFrom === "login" ? config.token : undefined;
        writeSaved({ url, ...(token ? { token } : {}), project: slug });
        if (json) return printJson({ project: found });
        console.log(`Now on project ${slug} (${plural(found.agents, "agent")}). Saved to ${configPath()}.`);
      },
    },
    {
      name: "delete",
      summary: "delete a project and every agent in it",
      usage: ["<slug> --yes"],
      options: { yes: { type: "boolean", help: "confirm: its agents and their memory are deleted with it" } },
      async run({ client: { request }, args, values, json }) {
        const slug = need(args, 0, "project to delete", "project");
        if (!values.yes)
          throw new UsageError(
            `deleting project '${slug}' deletes every agent in it and their memory: add --yes to confirm`,
            "project",
          );
        await request("DELETE", slugPath(slug));
        if (json) return printJson({ deleted: slug });
        console.log(`Deleted project ${slug} and its agents.`);
      },
    },
    {
      name: "import",
      summary: "create or update every agent and connection of a project file, in one go (idempotent)",
      usage: ["<agents.json> [--project <slug>]"],
      async run(context) {
        const file = need(context.args, 0, "project file", "project");
        const body = readJson(file, "project");
        const slug = current(context);
        const report = await context.client.request<ImportReport>("POST", `${slugPath(slug)}/import`, { json: body });
        if (context.json) return printJson(report);
        if (!report.changed) console.log(`Nothing changed: project ${slug} already matches ${file}.`);
        else {
          const { created, updated, unchanged } = report.agents;
          console.log(
            `Imported ${file} into project ${slug}: ${created.length} created, ${updated.length} updated, ${unchanged.length} unchanged.`,
          );
          if (created.length) console.log(`  created: ${created.join(", ")}`);
          if (updated.length) console.log(`  updated: ${updated.join(", ")}`);
          if (report.connections.added.length)
            console.log(`  connections added: ${report.connections.added.join(", ")}`);
          if (report.connections.removed.length)
            console.log(`  connections removed: ${report.connections.removed.join(", ")}`);
        }
        for (const w of report.warnings) note(`warning: ${w.path}: ${w.message}`);
      },
    },
    {
      name: "export",
      summary: "the project as a project file (agents.json), Pantheon's own fields under `pantheon`",
      usage: ["[--out <file>] [--project <slug>]"],
      options: { out: { type: "string", help: "write to this file instead of stdout" } },
      async run(context) {
        const file = await context.client.request<unknown>("GET", `${slugPath(current(context))}/export`);
        output(JSON.stringify(file, null, 2), text(context.values, "out"));
      },
    },
    forge,
  ],
};
