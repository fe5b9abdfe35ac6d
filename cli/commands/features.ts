// `pantheon features [list | show | create]`, `pantheon feature clone-url | push | pr | download`: a
// project's features, made empty or imported from a git remote, and the work leaving Pantheon
// (GET/POST /api/features, POST …/push, …/pr, GET …/download, the /git clone URL).
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
  /** Where plain git clones it from (GET /api/features/:feature only). */
  cloneUrl?: string;
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
    {
      name: "create",
      summary: "make a feature, empty or imported from a git repository (an admin)",
      usage: [
        "<feature> [--title <text>] [--orchestrator <agent>]",
        "<feature> --from <git-url> [--ref <branch>] [--token-secret <NAME>]",
      ],
      options: {
        title: { type: "string", help: "the title people read on the board (default: the name)" },
        orchestrator: {
          type: "string",
          help: "the agent that plans it (default: the project's one agent with plan.write)",
        },
        from: { type: "string", help: "import from this git smart-HTTP URL (no credentials in it)" },
        ref: { type: "string", help: "the branch to import (default: the remote's default)" },
        "token-secret": { type: "string", help: "the project secret holding the remote's token, e.g. GITHUB_TOKEN" },
      },
      async run({ client: { request }, args, values, json }) {
        const name = need(args, 0, "feature", "features");
        const from = text(values, "from");
        const ref = text(values, "ref");
        const tokenSecret = text(values, "token-secret");
        if (!from && (ref || tokenSecret))
          throw new UsageError("--ref and --token-secret go with --from <git-url>", "features");
        const orchestrator = text(values, "orchestrator") ?? (await plannerOf(request));
        const created = await request<FeatureSummary>("POST", "/api/features", {
          json: {
            name,
            title: text(values, "title") ?? name,
            orchestrator,
            ...(from
              ? { repository: { url: from, ...(ref ? { ref } : {}), ...(tokenSecret ? { tokenSecret } : {}) } }
              : {}),
          },
        });
        if (json) return printJson(created);
        console.log(
          `Created ${created.name}${from ? ` from ${from}${ref ? ` at ${ref}` : ""}` : ""}, planned by ${created.orchestrator}. Next: ask ${created.orchestrator} to plan it (pantheon tell ${created.orchestrator} …), then pantheon plan show ${created.name}`,
        );
      },
    },
  ],
};

/** The project's one agent that may write plans, or a usage error naming the candidates. */
async function plannerOf(request: Client["request"]): Promise<string> {
  const { agents } = await request<{ agents: { name: string; runtime?: { tools?: string[] } }[] }>(
    "GET",
    "/api/agents",
  );
  const planners = agents.filter((a) => a.runtime?.tools?.includes("plan.write")).map((a) => a.name);
  if (planners.length === 1) return planners[0]!;
  throw new UsageError(
    planners.length
      ? `name the planning agent with --orchestrator: one of ${planners.join(", ")}`
      : "name the planning agent with --orchestrator (no agent of this project has the plan.write tool)",
    "features",
  );
}

const formats = ["bundle", "tar", "zip"] as const;

export const feature: Command = {
  name: "feature",
  summary: "a feature's work leaving Pantheon: its clone URL, push its branch, open a pull request, download it",
  actions: [
    {
      name: "clone-url",
      summary: "the URL plain git clones the feature from (a chat token of the project as the password)",
      usage: ["<feature>"],
      async run({ client: { request }, args, json }) {
        const name = need(args, 0, "feature", "feature");
        const f = await summary(request, name);
        if (!f.cloneUrl) throw new Error("the server's answer has no clone URL: is it older than this CLI?");
        const clone = `git -c http.extraHeader="Authorization: Bearer $PANTHEON_TOKEN" clone ${f.cloneUrl}`;
        if (json) return printJson({ feature: f.name, cloneUrl: f.cloneUrl, clone });
        // The URL alone on stdout, so `git clone "$(pantheon feature clone-url x)"` works; the how on stderr.
        console.log(f.cloneUrl);
        note(`Clone with a token of this project (chat scope is enough): ${clone}`);
      },
    },
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
