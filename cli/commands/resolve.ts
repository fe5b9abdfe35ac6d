// `pantheon tasks resolve <feature> <task>`: a person settles a task's merge conflict, file by file,
// with their own text (--file), the feature branch's side (--ours) or the task's side (--theirs);
// POST /api/features/:feature/tasks/:task/resolve commits it with both parents and merges it.
import { UsageError } from "../client.ts";
import { text, type Action, type Context } from "../command.ts";
import { printJson } from "../format.ts";
import { readText } from "../arguments.ts";
import { featurePath } from "./features.ts";

/** One conflicting file as the task's detail gives it (null: the file is absent on that side). */
interface ConflictFile {
  path: string;
  ours: string | null;
  theirs: string | null;
}

const listOf = (values: Context["values"], name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
};

/** `--file <path>` reads ./<path>; `--file <path>=<local file>` reads another file for that path. */
function fileOption(spec: string): { path: string; local: string } {
  const at = spec.indexOf("=");
  return at > 0 ? { path: spec.slice(0, at), local: spec.slice(at + 1) } : { path: spec, local: spec };
}

export const resolve: Action = {
  name: "resolve",
  summary: "resolve a task's conflict: each file from your copy, the feature's side or the task's (an admin)",
  usage: ["<feature> <task> [--file <path>[=<local file>]]… [--ours <path>]… [--theirs <path>]… [--summary <text>]"],
  options: {
    file: { type: "string", multiple: true, help: "send this file as you resolved it (read from ./<path>)" },
    ours: { type: "string", multiple: true, help: "take the feature branch's version of this file" },
    theirs: { type: "string", multiple: true, help: "take the task's version of this file" },
    summary: { type: "string", help: "the resolving commit's message (default: the task's summary)" },
  },
  async run({ client: { request }, args, values, json }) {
    const [feature, task] = args;
    if (!feature || !task)
      throw new UsageError(
        "name the feature and the task: pantheon tasks resolve <feature> <task> --file <path>",
        "tasks",
      );
    const own = listOf(values, "file").map(fileOption);
    const ours = listOf(values, "ours");
    const theirs = listOf(values, "theirs");
    const detail = await request<{ conflict?: { files: ConflictFile[] } | null }>(
      "GET",
      featurePath(feature, `/tasks/${encodeURIComponent(task)}`),
    );
    const conflicting = detail.conflict?.files ?? [];
    const named = [...own.map((f) => f.path), ...ours, ...theirs];
    if (!named.length)
      throw new UsageError(
        conflicting.length
          ? `say how to resolve each conflicting file (${conflicting.map((f) => f.path).join(", ")}) with --file, --ours or --theirs`
          : "name each file with --file, --ours or --theirs",
        "tasks",
      );
    const twice = named.find((path, i) => named.indexOf(path) !== i);
    if (twice)
      throw new UsageError(`'${twice}' is named twice: give each file one of --file, --ours, --theirs`, "tasks");
    const side = (path: string, which: "ours" | "theirs") => {
      const file = conflicting.find((f) => f.path === path);
      if (!file)
        throw new UsageError(
          `--${which} ${path}: ${conflicting.length ? `not one of the conflicting files (${conflicting.map((f) => f.path).join(", ")})` : `task ${task} has no conflict (pantheon tasks list ${feature})`}`,
          "tasks",
        );
      return { path, content: file[which] };
    };
    const files = [
      ...own.map(({ path, local }) => ({ path, content: readText(local, "tasks") })),
      ...ours.map((path) => side(path, "ours")),
      ...theirs.map((path) => side(path, "theirs")),
    ];
    const summary = text(values, "summary");
    const body = await request<{ committed: boolean; conflicts: string[]; status: string; commit?: string }>(
      "POST",
      featurePath(feature, `/tasks/${encodeURIComponent(task)}/resolve`),
      { json: { files, ...(summary ? { summary } : {}) } },
    );
    if (json) return printJson(body);
    if (!body.committed) {
      console.log(`Not resolved: ${body.conflicts.join(", ")} still conflict. The task is ${body.status}.`);
      return 1;
    }
    console.log(`Resolved task ${task} of ${feature}: merged into the feature branch; the task is ${body.status}.`);
  },
};
