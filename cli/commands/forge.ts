// `pantheon project forge`: where the project's pull requests open (GET/PUT/DELETE
// /api/projects/:slug/forge): GitHub, GitHub Enterprise, Gitea or GitLab, by its API base.
import { UsageError } from "../client.ts";
import { text, type Action } from "../command.ts";
import { fields, printJson } from "../format.ts";

const kinds = ["github", "gitea", "gitlab"];

interface Forge {
  kind: string;
  apiBase: string;
  configured: boolean;
}

export const forge: Action = {
  name: "forge",
  summary: "where the project's pull requests open: show it, set GitHub (Enterprise), Gitea or GitLab, or clear it",
  usage: ["[--kind github|gitea|gitlab --api-base <url>] [--clear] [--project <slug>]"],
  options: {
    kind: { type: "string", help: "github (also GitHub Enterprise), gitea or gitlab (default: github)" },
    "api-base": { type: "string", help: "the API's base URL, e.g. https://github.example.com/api/v3" },
    clear: { type: "boolean", help: "go back to the deployment's GitHub" },
  },
  async run({ client: { request }, values, config, json }) {
    const slug = text(values, "project") ?? config.project ?? "default";
    const path = `/api/projects/${encodeURIComponent(slug)}/forge`;
    const kind = text(values, "kind");
    const apiBase = text(values, "api-base");
    if (kind && !kinds.includes(kind))
      throw new UsageError(`--kind is one of ${kinds.join(", ")}, got '${kind}'`, "project");
    if (values.clear && (kind || apiBase)) throw new UsageError("--clear takes no --kind or --api-base", "project");
    if (kind && !apiBase) throw new UsageError("--kind goes with --api-base <url>", "project");
    if (values.clear) await request("DELETE", path);
    const answer = apiBase
      ? await request<Forge>("PUT", path, { json: { kind: kind ?? "github", apiBase } })
      : await request<Forge>("GET", path);
    if (json) return printJson(answer);
    console.log(
      fields([
        ["project", slug],
        ["forge", answer.kind],
        ["API", answer.apiBase],
        ["set", answer.configured ? "for this project" : "no: the deployment's default"],
      ]),
    );
  },
};
