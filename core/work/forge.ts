import { z } from "zod";
import { lazySchema } from "../lazy-schema";

/** The forges a pull request opens on: GitHub and GitHub Enterprise, Gitea (GitHub's shape), GitLab (merge requests). */
export const forgeKinds = ["github", "gitea", "gitlab"] as const;
export type ForgeKind = (typeof forgeKinds)[number];

/**
 * A project's forge (`PUT /api/projects/:slug/forge`): the API a pull request opens through, so one
 * project uses GitHub Enterprise while another uses github.com. Without it, the deployment's
 * `PANTHEON_GITHUB_API_BASE` (default https://api.github.com).
 */
export const forgeSettingSchema = lazySchema(() =>
  z.strictObject({
    kind: z.enum(forgeKinds, { message: `one of ${forgeKinds.join(", ")}` }).default("github"),
    apiBase: z
      .string()
      .max(2048)
      .url("the API's base URL, e.g. https://github.example.com/api/v3 or https://gitea.example.com/api/v1")
      .refine((u) => /^https?:\/\//.test(u), "http or https only")
      .refine((u) => !/^https?:\/\/[^/]*@/.test(u), "no credentials in the URL: the token is a project secret")
      .transform((u) => u.replace(/\/+$/, "")),
  }),
);
export type ForgeSetting = z.infer<typeof forgeSettingSchema>;

/** The forge when the project names none: GitHub at the deployment's API base. */
export const defaultForge = (apiBase: string | undefined): ForgeSetting => ({
  kind: "github",
  apiBase: (apiBase || "https://api.github.com").replace(/\/+$/, ""),
});

/**
 * The request that opens a pull request (GitLab: a merge request) on `forge` for the repository at
 * `repoPath` (`acme/app`, GitLab's groups included), and how to read its answer.
 * @example
 * pullRequestRequest({ kind: "gitea", apiBase: "https://gitea.example.com/api/v1" }, "acme/app", pr, token).url;
 * // "https://gitea.example.com/api/v1/repos/acme/app/pulls"
 */
export function pullRequestRequest(
  forge: ForgeSetting,
  repoPath: string,
  pr: { title: string; head: string; base: string; body: string },
  token: string,
): {
  url: string;
  init: RequestInit;
  read: (answer: Record<string, unknown>) => { url: string | null; number: number | null };
} {
  const json = { "content-type": "application/json", "user-agent": "pantheon" };
  if (forge.kind === "gitlab")
    return {
      url: `${forge.apiBase}/projects/${encodeURIComponent(repoPath)}/merge_requests`,
      init: {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${token}` },
        body: JSON.stringify({ title: pr.title, source_branch: pr.head, target_branch: pr.base, description: pr.body }),
      },
      read: (a) => ({ url: str(a.web_url), number: num(a.iid) }),
    };
  return {
    url: `${forge.apiBase}/repos/${repoPath}/pulls`,
    init: {
      method: "POST",
      headers: {
        ...json,
        authorization: forge.kind === "gitea" ? `token ${token}` : `Bearer ${token}`,
        accept: "application/vnd.github+json",
      },
      body: JSON.stringify({ title: pr.title, head: pr.head, base: pr.base, body: pr.body }),
    },
    read: (a) => ({ url: str(a.html_url), number: num(a.number) }),
  };
}

const str = (v: unknown) => (typeof v === "string" ? v : null);
const num = (v: unknown) => (typeof v === "number" ? v : null);
