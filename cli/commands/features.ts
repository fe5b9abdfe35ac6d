// `pantheon features`, `pantheon feature push | pr | download`: a project's features, and the work
// leaving Pantheon (GET /api/features, POST …/push, …/pr, GET …/download).
import { writeFileSync } from "node:fs";
import { UsageError, type Client } from "../client.ts";
import { text, type Command } from "../command.ts";
import { fields, note, printJson, table, time } from "../format.ts";
import { need } from "../arguments.ts";

/** A feature as its summary route answers (the fields the CLI shows). */
export interface FeatureSummary {
  name: string;
  title: string;
  status: string;
  orchestrator: string;
  createdAt: number;
  completedAt?: number | null;
  paused?: boolean;
  needsPerson?: number;
  runAll?: { by: string; at: number } | null;
  stopped?: { reason: string } | null;
  plan: { version: number; approved: boolean } | null;
  tasks: { total: number; byStatus: Record<string, number> };
}

/** The path of a feature's route, its name escaped. */
export const featurePath = (feature: string, rest = "") => `/api/features/${encodeURIComponent(feature)}${rest}`;

const counts = (byStatus: Record<string, number>) =>
  Object.entries(byStatus)
    .map(([s, n]) => `${n} ${s}`)
    .join(", ") || "no tasks";

/** What a person reads first: what needs them, then the rest, newest first. */
function ordered(features: FeatureSummary[]): FeatureSummary[] {
  return [...features].sort((a, b) => (b.needsPerson ?? 0) - (a.needsPerson ?? 0) || b.createdAt - a.createdAt);
}

async function summary(request: Client["request"], feature: string): Promise<FeatureSummary> {
  return request<FeatureSummary>("GET", featurePath(feature));
}

export const features: Command = {
  name: "features",
  summary: "the project's features: what needs a person first, their plans and tasks",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "every feature: status, plan, tasks, what waits for a person",
      usage: [""],
      async run({ client: { request }, json }) {
        const body = await request<{ features: FeatureSummary[] }>("GET", "/api/features");
        if (json) return printJson(body);
        if (!body.features.length)
          return console.log("No features yet. An orchestrating agent creates one with its feature.create tool.");
        console.log(
          table(
            ["FEATURE", "STATUS", "NEEDS YOU", "PLAN", "TASKS", "STARTED", "COMPLETED", "TITLE"],
            ordered(body.features).map((f) => [
              f.name,
              f.paused ? `${f.status} (paused)` : f.status,
              f.needsPerson ?? 0,
              f.plan ? `v${f.plan.version}${f.plan.approved ? " approved" : " to review"}` : "-",
              counts(f.tasks.byStatus),
              time(f.createdAt),
              time(f.completedAt),
              f.title,
            ]),
          ),
        );
      },
    },
    {
      name: "show",
      summary: "one feature: its status, plan, tasks, run-all and what stopped it",
      usage: ["<feature>"],
      async run({ client: { request }, args, json }) {
        const f = await summary(request, need(args, 0, "feature", "features"));
        if (json) return printJson(f);
        console.log(
          fields([
            ["feature", f.name],
            ["title", f.title],
            ["status", f.paused ? `${f.status} (paused: pantheon tasks resume ${f.name})` : f.status],
            ["orchestrator", f.orchestrator],
            [
              "plan",
              f.plan ? `version ${f.plan.version}, ${f.plan.approved ? "approved" : "waiting for review"}` : "none yet",
            ],
            ["tasks", counts(f.tasks.byStatus)],
            ["needs a person", f.needsPerson ?? 0],
            ["run-all", f.runAll ? `on (started by ${f.runAll.by} ${time(f.runAll.at)})` : "off"],
            ["stopped", f.stopped?.reason],
            ["started", time(f.createdAt)],
            ["completed", time(f.completedAt)],
          ]),
        );
      },
    },
  ],
};

const formats = ["bundle", "tar", "zip"] as const;

export const feature: Command = {
  name: "feature",
  summary: "a feature's work leaving Pantheon: push its branch, open a pull request, download it",
  actions: [
    {
      name: "push",
      summary: "push the feature branch to its remote (the token comes from the project's secrets)",
      usage: ["<feature> [--remote <url>] [--branch <name>]"],
      options: {
        remote: { type: "string", help: "the remote's URL (default: the one the feature was imported from)" },
        branch: { type: "string", help: "the branch to push to (default: the feature's)" },
      },
      async run({ client: { request }, args, values, json }) {
        const name = need(args, 0, "feature", "feature");
        const remote = text(values, "remote");
        const branch = text(values, "branch");
        const body = await request<Record<string, unknown>>("POST", featurePath(name, "/push"), {
          json: { ...(remote ? { remote } : {}), ...(branch ? { branch } : {}) },
        });
        if (json) return printJson(body);
        console.log(
          `Pushed ${name}${body?.branch ? ` to ${String(body.branch)}` : ""}${body?.remote ? ` at ${String(body.remote)}` : ""}${body?.sha ? ` (${String(body.sha).slice(0, 12)})` : ""}.`,
        );
      },
    },
    {
      name: "pr",
      summary: "open a pull request with the feature's report as its body",
      usage: ["<feature> [--title <text>]"],
      options: { title: { type: "string", help: "the pull request's title (default: the feature's)" } },
      async run({ client: { request }, args, values, json }) {
        const name = need(args, 0, "feature", "feature");
        const title = text(values, "title");
        const body = await request<Record<string, unknown>>("POST", featurePath(name, "/pr"), {
          json: title ? { title } : {},
        });
        if (json) return printJson(body);
        console.log(`Pull request opened${body?.url ? `: ${String(body.url)}` : "."}`);
      },
    },
    {
      name: "download",
      summary: "the feature's code as a git bundle, a tar or a zip archive",
      usage: ["<feature> [--format bundle|tar|zip] [--out <file>]"],
      options: {
        format: { type: "string", help: "bundle (default), tar or zip" },
        out: { type: "string", help: "the file to write (default: <feature>.<format>)" },
      },
      async run({ client: { url, token, project, reach }, args, values }) {
        const name = need(args, 0, "feature", "feature");
        const format = text(values, "format") ?? "bundle";
        if (!(formats as readonly string[]).includes(format))
          throw new UsageError(`--format is one of ${formats.join(", ")}, got '${format}'`, "feature");
        const headers: Record<string, string> = {};
        if (token) headers.authorization = `Bearer ${token}`;
        if (project) headers["x-pantheon-project"] = project;
        const res = await reach(fetch(`${url}${featurePath(name, "/download")}?format=${format}`, { headers }));
        const bytes = new Uint8Array(await res.arrayBuffer());
        const out = text(values, "out") ?? `${name}.${format === "tar" ? "tar" : format}`;
        writeFileSync(out, bytes);
        note(`Wrote ${out} (${bytes.length.toLocaleString("en")} bytes).`);
      },
    },
  ],
};
