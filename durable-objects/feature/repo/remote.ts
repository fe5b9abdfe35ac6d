import { Buffer } from "node:buffer";
import type { HttpClient } from "isomorphic-git";
import { PantheonError } from "../../../core/errors";
import { makeGuardedFetch, outboundSettingsFrom, OutboundRefused, type FetchFn } from "../../../core/tools";
import { projectSecretRefusal } from "../../../core/secrets";
import { makeProjectSecrets } from "../../agent/secrets";
import { registryStub } from "../../stubs";
import { loadGit } from "./load-git";
import type { PackLimits } from "./pack-guard";

/** Where a feature's repository came from and goes to: a git smart-HTTP URL and the project secret holding its token. */
export interface RemoteSpec {
  url: string;
  ref?: string | undefined;
  tokenSecret?: string | undefined;
}

/**
 * `fetch` for one remote: through the outbound guard (no private, link-local or metadata address;
 * loopback only when the deployment allows it for tests; a private host only when the deployment
 * names it), its allowlist the remote's own host, so a redirect elsewhere is refused.
 */
export function guardedFetchFor(env: Env, url: string, fetchImpl: FetchFn = fetch): FetchFn {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    throw new PantheonError("validation_failed", `'${url}' is not an absolute URL`, {
      details: { issues: [{ path: ["url"], message: "an http(s) URL such as https://github.com/acme/app.git" }] },
    });
  }
  // A self-hosted server on a private network passes only when the deployment admin named it (PANTHEON_OUTBOUND_PRIVATE_HOSTS).
  const { allowLoopback, privateHosts } = outboundSettingsFrom(env as unknown as Record<string, string>);
  return makeGuardedFetch(fetchImpl, () => ({ allowHosts: [host], allowLoopback, privateHosts: privateHosts ?? [] }));
}

/**
 * isomorphic-git's HTTP client over a guarded fetch: requests are small enough to send whole. With
 * `limits` (an import), the pack a remote answers is read through the pack guard as it arrives and
 * refused past the limits before isomorphic-git unpacks any of it (./pack-guard.ts).
 */
export function gitHttp(fetchFn: FetchFn, limits?: PackLimits): HttpClient {
  return {
    async request({ url, method = "GET", headers = {}, body }) {
      let payload: Uint8Array | undefined;
      if (body) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
        payload = Buffer.concat(chunks);
      }
      let res: Response;
      try {
        res = await fetchFn(url, { method, headers, ...(payload ? { body: payload as unknown as BodyInit } : {}) });
      } catch (error) {
        if (error instanceof OutboundRefused)
          throw new PantheonError("forbidden", `the remote's URL is refused by the outbound guard: ${error.message}`, {
            details: { url: redactUrl(url) },
          });
        throw new PantheonError("bad_gateway", `the remote did not answer: ${(error as Error).message}`, {
          details: { url: redactUrl(url) },
        });
      }
      // An import reads every answer bounded: the pack through its guard, the rest (the refs listing) capped.
      const git = limits ? await loadGit() : undefined;
      const chunks = !git
        ? [new Uint8Array(await res.arrayBuffer())]
        : res.ok && url.endsWith("/git-upload-pack")
          ? await git.guardUploadPack(res, limits!)
          : await git.readCapped(res, git.remoteAnswerLimit);
      return {
        url,
        method,
        statusCode: res.status,
        statusMessage: res.statusText,
        headers: Object.fromEntries(res.headers),
        body: chunks as unknown as AsyncIterableIterator<Uint8Array>,
      };
    },
  };
}

/** A URL as it may be shown (no query, no credentials). */
export const redactUrl = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
};

/** The value of a project secret (its own, or a deployment secret granted to it), opened here for one remote call; never stored, logged or answered. */
export async function openSecret(env: Env, project: string, name: string): Promise<string> {
  // The same rule as a tool's header: Pantheon's own secrets and the model keys never leave, and only the project's own or granted names open.
  const refusal = projectSecretRefusal(
    project,
    name,
    "tool",
    await registryStub(env, project).secretNames(),
    env as unknown as Record<string, unknown>,
  );
  if (refusal)
    throw new PantheonError("validation_failed", refusal, {
      details: { issues: [{ path: ["tokenSecret"], message: refusal }] },
    });
  const secrets = makeProjectSecrets({ project: () => project, env, registry: () => registryStub(env, project) });
  const value = await secrets.get(name, "tool");
  if (!value)
    throw new PantheonError(
      "validation_failed",
      `project '${project}' has no secret '${name}' (PUT /api/projects/${project}/secrets/${name} sets it)`,
      { details: { issues: [{ path: ["tokenSecret"], message: `no secret '${name}' in this project` }] } },
    );
  return value;
}

/** isomorphic-git's auth callback for a token: sent as the HTTP basic password (GitHub's and most servers' way). */
export const tokenAuth = (token: string | undefined) =>
  token ? () => ({ username: "x-access-token", password: token }) : undefined;

/** A GitHub repository's owner and name from its clone URL (https://github.com/acme/app.git → acme/app). */
export function githubRepoOf(url: string): { owner: string; repo: string } {
  const m = /^\/([^/]+)\/([^/]+?)(\.git)?\/?$/.exec(new URL(url).pathname);
  if (!m)
    throw new PantheonError(
      "validation_failed",
      `'${redactUrl(url)}' does not name a repository as /<owner>/<repo>.git`,
      {
        details: { issues: [{ path: ["remote"], message: "a URL of the form https://github.com/<owner>/<repo>.git" }] },
      },
    );
  return { owner: m[1]!, repo: m[2]! };
}

/** A repository's whole path on its server (GitLab's groups included): https://gitlab.example.com/g/sub/app.git → g/sub/app. */
export function repoPathOf(url: string): string {
  const path = new URL(url).pathname.replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  if (!path.includes("/"))
    throw new PantheonError(
      "validation_failed",
      `'${redactUrl(url)}' does not name a repository as /<group>/<repo>.git`,
      {
        details: {
          issues: [{ path: ["remote"], message: "a URL of the form https://gitlab.example.com/<group>/<repo>.git" }],
        },
      },
    );
  return path;
}

/**
 * A failed exchange with a remote as the caller can act on it: a refusal of the credentials (401,
 * 403) is a 400 naming the secret that held them, a missing repository (404) a 400 naming the URL;
 * the guard's and Pantheon's own errors pass as they are; anything else is the remote's failure (502).
 */
export function remoteFailure(
  error: unknown,
  input: { doing: string; url: string; tokenSecret?: string | undefined; fields: { url: string; tokenSecret: string } },
): PantheonError {
  if (error instanceof PantheonError) return error;
  const e = error as { code?: string; data?: { statusCode?: number }; message?: string };
  const status = e?.code === "HttpError" ? e.data?.statusCode : undefined;
  const url = redactUrl(input.url);
  const invalid = (field: string, message: string) =>
    new PantheonError("validation_failed", message, {
      details: { status, url, issues: [{ path: field.split("."), message }] },
    });
  if (status === 401 || status === 403)
    return input.tokenSecret
      ? invalid(
          input.fields.tokenSecret,
          `the remote ${url} refused the credentials in secret ${input.tokenSecret} (${status}): set a token that may read it (PUT /api/projects/<project>/secrets/${input.tokenSecret})`,
        )
      : invalid(
          input.fields.tokenSecret,
          `the remote ${url} asks for credentials (${status}): name the project secret holding its token in '${input.fields.tokenSecret}'`,
        );
  if (status === 404)
    return invalid(input.fields.url, `the remote has no repository at ${url} (404): check '${input.fields.url}'`);
  return new PantheonError("bad_gateway", `${input.doing} ${url} failed: ${e?.message ?? String(error)}`, {
    details: { url, ...(status ? { status } : {}) },
  });
}
