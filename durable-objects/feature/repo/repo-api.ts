import { RpcTarget } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import type { PushResult } from "isomorphic-git";
import { PantheonError, resultOf, type Result } from "../../../core/errors";
import {
  authorizeWork,
  concatBytes,
  defaultForge,
  flushPkt,
  gitBundle,
  packForClient,
  parseUploadRequest,
  pktLine,
  tarArchive,
  uploadPackAdvertisement,
  pullRequestRequest,
  type ForgeSetting,
  type Principal,
} from "../../../core/work";
import type { FileStore } from "../files";
import type { TaskRef, TaskRow, TaskStore } from "../task-store";
import type { CommitOutcome } from "./commit-task";
import type { FeatureGit } from "./feature-git";
import { loadGit } from "./load-git";
import type { FetchFn } from "../../../core/tools";
import { importRemote } from "./import-remote";
import {
  gitHttp,
  githubRepoOf,
  guardedFetchFor,
  openSecret,
  redactUrl,
  remoteFailure,
  repoPathOf,
  tokenAuth,
  type RemoteSpec,
} from "./remote";
import { pushes } from "./schema";

export interface RepoApiDeps {
  env: Env;
  project: string;
  feature: { name: string; orchestrator: string };
  git: FeatureGit;
  files: FileStore;
  taskRows: TaskStore;
  transact: <T>(fn: () => T) => T;
  /** Makes the writes so far durable (the object's storage.sync): a push is on disk before it leaves. */
  flush(): Promise<void>;
  commit(t: TaskRow, input: { key: string; summary?: string }, by: Principal): Promise<CommitOutcome>;
  /** Tests only: runs after a push is recorded and before it leaves (an eviction there). */
  beforePushSend?: () => void;
  /** Tests only: the fetch an import reaches its remote with (still through the outbound guard). */
  remoteFetch?: FetchFn;
}

const trailer = (message: string, name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(message)?.[1]?.trim();

/**
 * The feature's repository as the API and git clients see it (returned by FeatureDO.repo() over
 * RPC): history, branches, diffs, a person's resolution of a conflict, import, push, pull request,
 * downloads, and git's smart-HTTP upload-pack for `git clone`.
 */
export class FeatureRepoApi extends RpcTarget {
  constructor(private readonly deps: RepoApiDeps) {
    super();
  }

  private get git() {
    return this.deps.git;
  }

  private async ready(): Promise<string> {
    const s = this.git.state();
    if (!s)
      throw new PantheonError("conflict", "the feature's repository is not made yet: start a task, or import one");
    return this.git.tipOf(s.branch);
  }

  /** Commits from a branch or commit (the feature branch by default), newest first, with the task and run their trailers name. */
  commits(ref: string | undefined, limit: number): Promise<Result<{ commits: unknown[] }>> {
    return resultOf(async () => {
      await this.ready();
      const at = ref ?? this.git.state()!.branch;
      if (!(await this.git.repo.resolve(at)))
        throw new PantheonError(
          "not_found",
          `ref '${at}' is not a branch or commit of this feature (GET …/branches lists them)`,
          { details: { ref: at } },
        );
      const commits = await this.git.repo.log(at, limit);
      return {
        commits: commits.map((c) => {
          const task = trailer(c.message, "Task");
          const run = trailer(c.message, "Run");
          const m = task ? /^(\d+)(?: \(([^)]+)\))?/.exec(task) : null;
          return {
            ...c,
            ...(m ? { task: Number(m[1]), ...(m[2] ? { taskKey: m[2] } : {}) } : {}),
            ...(run ? { run } : {}),
          };
        }),
      };
    });
  }

  branches(): Promise<
    Result<{
      base: { sha: string; remote?: string; ref?: string };
      branch: string;
      branches: { name: string; sha: string; task?: number }[];
    }>
  > {
    return resultOf(async () => {
      await this.ready();
      const s = this.git.state()!;
      const tasks = this.deps.taskRows.all();
      const branches = (await this.git.repo.branches()).map((b) => {
        const task = tasks.find((t) => `tasks/${t.key}` === b.name);
        return { ...b, ...(task ? { task: task.number } : {}) };
      });
      return {
        base: {
          sha: s.baseCommit,
          ...(s.remote ? { remote: redactUrl(s.remote) } : {}),
          ...(s.remoteRef ? { ref: s.remoteRef } : {}),
        },
        branch: s.branch,
        branches,
      };
    });
  }

  diff(sha: string): Promise<Result<{ sha: string; files: unknown[] }>> {
    return resultOf(async () => {
      await this.ready();
      const oid = await this.git.repo.resolve(sha);
      if (!oid)
        throw new PantheonError("not_found", `commit '${sha}' is not in this feature's repository`, {
          details: { sha },
        });
      try {
        return { sha: oid, files: await this.git.repo.diff(oid) };
      } catch {
        throw new PantheonError("not_found", `commit '${sha}' is not in this feature's repository`, {
          details: { sha },
        });
      }
    });
  }

  /**
   * A person resolves a task's conflict: each file's content is written to the task's working tree
   * and the task is committed again (a merge of both sides), then merged into the feature branch.
   */
  resolve(
    ref: TaskRef,
    input: { files: { path: string; content: string | null }[]; key: string; summary?: string },
    by: Principal,
  ): Promise<Result<CommitOutcome>> {
    return resultOf(async () => {
      const t = this.deps.taskRows.get(ref);
      const number = t.number;
      authorizeWork("task.commit", by, { orchestrator: this.deps.feature.orchestrator, worker: t.worker });
      if (!this.git.conflictOf(t.key))
        throw new PantheonError(
          "conflict",
          `task ${number} has no conflict to resolve (its commit merged, or it was never committed)`,
          { details: { task: number } },
        );
      for (const f of input.files) this.deps.files.write(t.number, f.path, f.content);
      return this.deps.commit(
        this.deps.taskRows.get(t.number),
        { key: input.key, ...(input.summary ? { summary: input.summary } : {}) },
        by,
      );
    });
  }

  /** Imports a remote repository at a ref (its default branch when none): the feature branch starts at that commit, the base recorded (./import-remote.ts). */
  importFrom(spec: RemoteSpec): Promise<Result<{ baseCommit: string; branch: string; files: number }>> {
    return resultOf(() => this.git.serialized(() => importRemote(this.deps, spec)));
  }

  /**
   * Pushes the feature branch to its remote (or the one named) with the token from the project's
   * secrets. The attempt is recorded before it leaves and finished after the remote took it: an
   * eviction in between leaves it pending, and the next push sends the same commit again (a remote
   * that has it already answers "up to date").
   */
  push(input: {
    remote?: string;
    branch?: string;
    tokenSecret?: string;
  }): Promise<
    Result<{ pushed: boolean; remote: string; branch: string; commit: string; push: string; retried: boolean }>
  > {
    return resultOf(async () => {
      const tip = await this.ready();
      const s = this.git.state()!;
      const url = input.remote ?? s.remote;
      if (!url)
        throw new PantheonError(
          "validation_failed",
          "the feature has no remote: name one with 'remote' (a git smart-HTTP URL)",
          { details: { issues: [{ path: ["remote"], message: "a git URL such as https://github.com/acme/app.git" }] } },
        );
      const target = input.branch ?? s.branch;
      const tokenSecret = input.tokenSecret ?? s.tokenSecret ?? undefined;
      const pending = this.deps.transact(() => {
        const open = pendingPush(this.deps, redactUrl(url), target);
        if (open && open.commit === tip) return { id: open.id, retried: true };
        const id = crypto.randomUUID();
        if (open) markPush(this.deps, open.id, "failed", "superseded by a newer push");
        insertPush(this.deps, { id, remote: redactUrl(url), branch: target, commit: tip });
        return { id, retried: false };
      });
      await this.deps.flush();
      this.deps.beforePushSend?.();
      const token = tokenSecret ? await openSecret(this.deps.env, this.deps.project, tokenSecret) : undefined;
      const onAuth = tokenAuth(token);
      let result: PushResult;
      try {
        result = await (await loadGit()).push({
          ...this.git.repo.base,
          http: gitHttp(guardedFetchFor(this.deps.env, url)),
          url,
          ref: s.branch,
          remoteRef: `refs/heads/${target}`,
          ...(onAuth ? { onAuth } : {}),
        });
      } catch (error) {
        const message = error instanceof PantheonError ? error.message : (error as Error).message;
        this.deps.transact(() => markPush(this.deps, pending.id, "failed", message));
        if (/not a simple fast-forward|rejected|non-fast-forward/i.test(message))
          throw new PantheonError("conflict", `pushing to ${redactUrl(url)} failed: ${message}`, {
            details: { remote: redactUrl(url), branch: target },
          });
        throw remoteFailure(error, {
          doing: "pushing to",
          url,
          tokenSecret,
          fields: { url: "remote", tokenSecret: "tokenSecret" },
        });
      }
      if (!result.ok) {
        const message =
          result.error ??
          Object.values(result.refs)
            .map((r) => r.error)
            .filter(Boolean)
            .join("; ");
        this.deps.transact(() => markPush(this.deps, pending.id, "failed", message));
        throw new PantheonError("conflict", `the remote refused the push: ${message}`, {
          details: { remote: redactUrl(url), branch: target },
        });
      }
      this.deps.transact(() => markPush(this.deps, pending.id, "pushed", null));
      return {
        pushed: true,
        remote: redactUrl(url),
        branch: target,
        commit: tip,
        push: pending.id,
        retried: pending.retried,
      };
    });
  }

  /**
   * Opens a pull request (GitLab: a merge request) from the pushed feature branch into the imported
   * ref, on the project's forge (`forge`, PUT /api/projects/:slug/forge), else GitHub at the
   * deployment's PANTHEON_GITHUB_API_BASE; through the outbound guard.
   */
  pullRequest(input: {
    title: string;
    body: string;
    base?: string;
    head?: string;
    tokenSecret?: string;
    forge?: ForgeSetting | null;
  }): Promise<Result<{ url: string | null; number: number | null; head: string; base: string }>> {
    return resultOf(async () => {
      await this.ready();
      const s = this.git.state()!;
      if (!s.remote)
        throw new PantheonError(
          "conflict",
          "the feature has no remote to open a pull request on: import from one, or push to one first",
        );
      const pushed = this.pushedBranch();
      const head = input.head ?? pushed ?? s.branch;
      const base = input.base ?? s.remoteRef ?? "main";
      const tokenSecret = input.tokenSecret ?? s.tokenSecret;
      if (!tokenSecret)
        throw new PantheonError(
          "validation_failed",
          "a pull request needs a token: name the project secret with 'tokenSecret'",
          {
            details: {
              issues: [{ path: ["tokenSecret"], message: "the name of a project secret holding a GitHub token" }],
            },
          },
        );
      const token = await openSecret(this.deps.env, this.deps.project, tokenSecret);
      const forge =
        input.forge ??
        defaultForge((this.deps.env as unknown as Record<string, string | undefined>).PANTHEON_GITHUB_API_BASE);
      const named = forge.kind === "gitlab" ? undefined : githubRepoOf(s.remote);
      const repoPath = named ? `${named.owner}/${named.repo}` : repoPathOf(s.remote);
      const request = pullRequestRequest(forge, repoPath, { title: input.title, head, base, body: input.body }, token);
      const res = await guardedFetchFor(this.deps.env, forge.apiBase)(request.url, request.init).catch(
        (error: Error) => {
          throw new PantheonError("bad_gateway", `the pull request API did not answer: ${error.message}`);
        },
      );
      const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      const reason = typeof answer.message === "string" ? answer.message : "no reason given";
      const forgeName = forge.kind === "github" ? "GitHub" : forge.kind === "gitea" ? "Gitea" : "GitLab";
      if (res.status === 401 || res.status === 403) {
        const message = `${forgeName} refused the credentials in secret ${tokenSecret} (${res.status}): ${reason}`;
        throw new PantheonError("validation_failed", message, {
          details: { status: res.status, issues: [{ path: ["tokenSecret"], message }] },
        });
      }
      if (!res.ok)
        throw new PantheonError(
          res.status === 422 || res.status === 409 ? "conflict" : "bad_gateway",
          `${forgeName} refused the pull request (${res.status}): ${reason}`,
          { details: { status: res.status, head, base } },
        );
      return { ...request.read(answer), head, base };
    });
  }

  private pushedBranch(): string | undefined {
    return this.deps.transact(() => lastPushed(this.deps));
  }

  /** The feature branch as a git bundle, a tar or a zip of its files. */
  download(
    format: "bundle" | "tar" | "zip",
  ): Promise<Result<{ bytes: Uint8Array; contentType: string; filename: string }>> {
    return resultOf(async () => {
      const tip = await this.ready();
      const s = this.git.state()!;
      const name = this.deps.feature.name;
      if (format === "bundle") {
        const pack = await this.git.repo.pack(await this.git.repo.reachable([tip]));
        return {
          bytes: gitBundle(
            [
              { name: "HEAD", oid: tip },
              { name: `refs/heads/${s.branch}`, oid: tip },
            ],
            pack,
          ),
          contentType: "application/x-git-bundle",
          filename: `${name}.bundle`,
        };
      }
      const snap = await this.git.repo.snapshot(tip);
      const { readBlob, strToU8, zipSync } = await loadGit();
      const entries: { path: string; data: Uint8Array; mode?: string }[] = [];
      for (const [path, oid] of snap.files)
        entries.push({
          path,
          data: (await readBlob({ ...this.git.repo.base, oid })).blob,
          ...(snap.modes.get(path) ? { mode: snap.modes.get(path)! } : {}),
        });
      if (format === "tar")
        return {
          bytes: tarArchive(entries, name, Date.now()),
          contentType: "application/x-tar",
          filename: `${name}.tar`,
        };
      const zip: Record<string, Uint8Array> = {};
      for (const e of entries) zip[`${name}/${e.path}`] = e.data;
      return {
        bytes: zipSync(Object.keys(zip).length ? zip : { [`${name}/`]: strToU8("") }),
        contentType: "application/zip",
        filename: `${name}.zip`,
      };
    });
  }

  /** `GET …/info/refs?service=git-upload-pack`: every branch, HEAD the feature branch. */
  advertise(): Promise<Result<Uint8Array>> {
    return resultOf(async () => {
      await this.ready();
      const s = this.git.state()!;
      const refs = (await this.git.repo.branches()).map((b) => ({ name: `refs/heads/${b.name}`, oid: b.sha }));
      return uploadPackAdvertisement(refs, `refs/heads/${s.branch}`);
    });
  }

  /** `POST …/git-upload-pack`: a pack of what the client wants and lacks, after the NAK, on side-band when the client asked for it (isomorphic-git always does). */
  uploadPack(body: Uint8Array): Promise<Result<Uint8Array>> {
    return resultOf(async () => {
      await this.ready();
      let request: ReturnType<typeof parseUploadRequest>;
      try {
        request = parseUploadRequest(body);
      } catch {
        throw new PantheonError("bad_request", "the request is not a git upload-pack request");
      }
      if (!request.done && request.haves.length > 0) return concatBytes([pktLine("NAK\n")]);
      if (request.wants.length === 0) return flushPkt();
      const oids = await this.git.repo.reachable(request.wants, request.haves);
      return concatBytes([pktLine("NAK\n"), packForClient(await this.git.repo.pack(oids), request.capabilities)]);
    });
  }
}

function pendingPush(deps: RepoApiDeps, remote: string, branch: string) {
  return deps.git.db
    .select()
    .from(pushes)
    .where(eq(pushes.status, "pending"))
    .all()
    .find((p) => p.remote === remote && p.branch === branch);
}

function insertPush(deps: RepoApiDeps, p: { id: string; remote: string; branch: string; commit: string }) {
  deps.git.db
    .insert(pushes)
    .values({ ...p, status: "pending", startedAt: Date.now() })
    .run();
}

function markPush(deps: RepoApiDeps, id: string, status: "pushed" | "failed", error: string | null) {
  deps.git.db.update(pushes).set({ status, error, finishedAt: Date.now() }).where(eq(pushes.id, id)).run();
}

function lastPushed(deps: RepoApiDeps): string | undefined {
  return deps.git.db
    .select()
    .from(pushes)
    .where(eq(pushes.status, "pushed"))
    .all()
    .sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0))[0]?.branch;
}
