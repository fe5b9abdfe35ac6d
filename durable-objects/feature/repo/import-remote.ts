import { PantheonError } from "../../../core/errors";
import { loadGit } from "./load-git";
import { gitHttp, guardedFetchFor, openSecret, remoteFailure, tokenAuth, type RemoteSpec } from "./remote";
import type { FetchFn } from "../../../core/tools";
import type { FileStore } from "../files";
import type { FeatureGit } from "./feature-git";
import { repoState } from "./schema";

/** What an import reads and writes (RepoApiDeps has it all). */
export interface ImportDeps {
  env: Env;
  project: string;
  feature: { name: string };
  git: FeatureGit;
  files: Pick<FileStore, "seed">;
  transact: <T>(fn: () => T) => T;
  /** Tests only: the fetch a remote is reached with (through the outbound guard all the same). */
  remoteFetch?: FetchFn;
}

/**
 * What one import may bring into a feature's object (its SQLite holds every file twice: git objects
 * and the checked-out tree). `bytes` bounds the pack as it arrives (each object and all of them,
 * inflated: ./pack-guard.ts) and the files checked out.
 */
export const importLimits = { files: 5_000, bytes: 64 * 1024 * 1024 };

/**
 * Imports a remote repository at a ref (its default branch when none) into a feature without one:
 * the pack is refused as it arrives when it would unpack past `importLimits`; the feature branch
 * `pantheon/<feature>` starts at the remote's commit, recorded as the base. Run inside the
 * repository's serialized queue.
 */
export async function importRemote(
  deps: ImportDeps,
  spec: RemoteSpec,
  limits: { files: number; bytes: number } = importLimits,
): Promise<{ baseCommit: string; branch: string; files: number }> {
  const git = deps.git;
  if (git.state()) throw new PantheonError("conflict", "the feature already has a repository");
  const token = spec.tokenSecret ? await openSecret(deps.env, deps.project, spec.tokenSecret) : undefined;
  const http = gitHttp(guardedFetchFor(deps.env, spec.url, deps.remoteFetch), limits);
  const onAuth = tokenAuth(token);
  try {
    await (await loadGit()).clone({
      ...git.repo.base,
      dir: "/work",
      http,
      url: spec.url,
      ...(spec.ref ? { ref: spec.ref } : {}),
      singleBranch: true,
      noCheckout: true,
      noTags: true,
      ...(onAuth ? { onAuth } : {}),
    });
  } catch (error) {
    throw remoteFailure(error, {
      doing: "importing",
      url: spec.url,
      tokenSecret: spec.tokenSecret,
      fields: { url: "repository.url", tokenSecret: "repository.tokenSecret" },
    });
  }
  const ref = spec.ref ?? (await (await loadGit()).currentBranch({ ...git.repo.base })) ?? "main";
  const base = (await git.repo.resolve(`refs/remotes/origin/${ref}`)) ?? (await git.repo.resolve(ref));
  if (!base) throw new PantheonError("not_found", `the remote has no branch '${ref}'`, { details: { ref } });
  const branch = `pantheon/${deps.feature.name}`;
  const snap = await git.repo.snapshot(base);
  if (snap.files.size > limits.files)
    throw new PantheonError(
      "payload_too_large",
      `the remote's ${ref} has ${snap.files.size} files: a feature imports at most ${limits.files}`,
      { details: { files: snap.files.size, limit: limits.files } },
    );
  const seeded: { path: string; content: string }[] = [];
  let bytes = 0;
  for (const [path, oid] of snap.files) {
    const content = await git.repo.text(oid);
    bytes += content.length;
    if (bytes > limits.bytes)
      throw new PantheonError(
        "payload_too_large",
        `the remote's ${ref} holds more than ${limits.bytes / 1024 / 1024} MB of files: a feature imports at most that`,
        { details: { limit: limits.bytes } },
      );
    seeded.push({ path, content });
  }
  deps.transact(() => {
    git.repo.setRef(branch, base);
    deps.files.seed(seeded, Date.now());
    git.fs.writeSync(`/repo.git/HEAD`, `ref: refs/heads/${branch}\n`);
    // The remote's token stays a secret's name; a URL with credentials in it is refused by the guard.
    git.db
      .insert(repoState)
      .values({
        id: 1,
        branch,
        baseCommit: base,
        remote: spec.url,
        remoteRef: ref,
        tokenSecret: spec.tokenSecret ?? null,
      })
      .run();
  });
  return { baseCommit: base, branch, files: seeded.length };
}
