import { Buffer } from "node:buffer";
import type { TreeEntry } from "isomorphic-git";
import { createTwoFilesPatch, diffLines } from "diff";
import type { FlatTree, MergedFile } from "../../../core/work";
import { loadGit } from "./load-git";
import type { SqliteFs } from "./sqlite-fs";

/** The bare git directory inside the fs adapter's table. */
export const gitdir = "/repo.git";

export interface Signature {
  name: string;
  email: string;
  at: number;
}

export interface CommitInfo {
  sha: string;
  message: string;
  author: { name: string; email: string };
  date: number;
  parents: string[];
}

export interface FileDiff {
  path: string;
  status: "added" | "modified" | "deleted";
  additions: number;
  deletions: number;
  patch: string;
}

/** A flat tree with each path's mode, so a rewritten tree keeps executables and links as they were. */
export interface Snapshot {
  files: FlatTree;
  modes: ReadonlyMap<string, string>;
}

const decoder = new TextDecoder();
const isSha = (ref: string) => /^[0-9a-f]{40}$/.test(ref);
const person = (s: Signature) => ({
  name: s.name,
  email: s.email,
  timestamp: Math.floor(s.at / 1000),
  timezoneOffset: 0,
});

/**
 * The feature's git repository (isomorphic-git over the object's SQLite, ./sqlite-fs.ts): objects,
 * trees and commits are written through isomorphic-git; refs are moved by `setRef` only, a plain
 * row write the caller makes inside the transaction that also records what the move means — so an
 * eviction between writing objects and moving a ref leaves unreferenced objects, never a broken ref.
 * Flattened trees are kept in memory by commit id (a cache: an evicted object reads them again).
 */
export function makeRepository(fs: SqliteFs) {
  const cache = {};
  const base = { fs: { promises: fs.promises }, gitdir, cache };
  const snapshots = new Map<string, Snapshot>();
  const trees = new Map<string, string>();
  const texts = new Map<string, string>();

  async function init(branch: string): Promise<void> {
    await (await loadGit()).init({ fs: base.fs, gitdir, bare: true, defaultBranch: branch });
  }

  /** A branch's commit id, a full sha as it is, or undefined. Loose refs first (they are what `setRef` writes), then packed ones. */
  async function resolve(ref: string): Promise<string | undefined> {
    if (isSha(ref)) return ref;
    const loose = fs.readSync(`${gitdir}/refs/heads/${ref}`);
    if (loose) return decoder.decode(loose).trim();
    try {
      return await (await loadGit()).resolveRef({ ...base, ref: ref.startsWith("refs/") ? ref : `refs/heads/${ref}` });
    } catch {
      return undefined;
    }
  }

  /** Moves (or makes) a branch. Synchronous: call it inside the transaction that records why. */
  function setRef(branch: string, oid: string): void {
    fs.writeSync(`${gitdir}/refs/heads/${branch}`, `${oid}\n`);
  }

  function deleteRef(branch: string): void {
    fs.removeSync(`${gitdir}/refs/heads/${branch}`);
  }

  /** A commit's root tree (commits never change: kept in memory). */
  async function treeOf(commit: string): Promise<string> {
    let tree = trees.get(commit);
    if (!tree) {
      tree = (await (await loadGit()).readCommit({ ...base, oid: commit })).commit.tree;
      if (trees.size > 1024) trees.delete(trees.keys().next().value!);
      trees.set(commit, tree);
    }
    return tree;
  }

  /** Every file of a commit's tree with its blob id and mode (kept by tree: a merge that took a task's tree reads it once). */
  async function snapshot(commit: string): Promise<Snapshot> {
    const root = await treeOf(commit);
    const cached = snapshots.get(root);
    if (cached) return cached;
    const files = new Map<string, string>();
    const modes = new Map<string, string>();
    const walk = async (tree: string, prefix: string) => {
      const { tree: entries } = await (await loadGit()).readTree({ ...base, oid: tree });
      for (const e of entries) {
        const path = `${prefix}${e.path}`;
        if (e.type === "tree") await walk(e.oid, `${path}/`);
        else if (e.type === "blob") {
          files.set(path, e.oid);
          modes.set(path, e.mode);
        }
      }
    };
    await walk(root, "");
    const snap = { files, modes };
    if (snapshots.size > 32) snapshots.delete(snapshots.keys().next().value!);
    snapshots.set(root, snap);
    return snap;
  }

  async function text(oid: string): Promise<string> {
    const cached = texts.get(oid);
    if (cached !== undefined) return cached;
    const { blob } = await (await loadGit()).readBlob({ ...base, oid });
    const value = decoder.decode(blob);
    if (value.length < 64 * 1024) {
      if (texts.size > 512) texts.delete(texts.keys().next().value!);
      texts.set(oid, value);
    }
    return value;
  }

  async function blob(content: string): Promise<string> {
    return (await loadGit()).writeBlob({ ...base, blob: Buffer.from(content, "utf8") });
  }

  /** Writes the trees of a set of files (blobs written for new texts) and answers the root tree's id. */
  async function writeTree(
    files: ReadonlyMap<string, MergedFile>,
    modes: ReadonlyMap<string, string>,
  ): Promise<string> {
    type Dir = { files: Map<string, TreeEntry>; dirs: Map<string, Dir> };
    const root: Dir = { files: new Map(), dirs: new Map() };
    for (const [path, file] of files) {
      const oid = "oid" in file ? file.oid : await blob(file.text);
      const parts = path.split("/");
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        if (!dir.dirs.has(part)) dir.dirs.set(part, { files: new Map(), dirs: new Map() });
        dir = dir.dirs.get(part)!;
      }
      const name = parts.at(-1)!;
      dir.files.set(name, { mode: modes.get(path) ?? "100644", path: name, oid, type: "blob" });
    }
    const write = async (dir: Dir): Promise<string> => {
      const entries: TreeEntry[] = [...dir.files.values()];
      for (const [name, sub] of dir.dirs)
        entries.push({ mode: "040000", path: name, oid: await write(sub), type: "tree" });
      return (await loadGit()).writeTree({ ...base, tree: entries });
    };
    return write(root);
  }

  async function writeCommit(input: {
    tree: string;
    parents: string[];
    message: string;
    author: Signature;
  }): Promise<string> {
    return (await loadGit()).writeCommit({
      ...base,
      commit: {
        tree: input.tree,
        parent: input.parents,
        message: input.message.endsWith("\n") ? input.message : `${input.message}\n`,
        author: person(input.author),
        committer: person(input.author),
      },
    });
  }

  async function readCommit(oid: string): Promise<CommitInfo> {
    const { commit } = await (await loadGit()).readCommit({ ...base, oid });
    return {
      sha: oid,
      message: commit.message,
      author: { name: commit.author.name, email: commit.author.email },
      date: commit.author.timestamp * 1000,
      parents: commit.parent,
    };
  }

  async function log(ref: string, limit: number): Promise<CommitInfo[]> {
    const oid = await resolve(ref);
    if (!oid) return [];
    const entries = await (await loadGit()).log({ ...base, ref: oid, depth: limit });
    return entries.map((e) => ({
      sha: e.oid,
      message: e.commit.message,
      author: { name: e.commit.author.name, email: e.commit.author.email },
      date: e.commit.author.timestamp * 1000,
      parents: e.commit.parent,
    }));
  }

  async function mergeBase(a: string, b: string): Promise<string | undefined> {
    const [found] = await (await loadGit()).findMergeBase({ ...base, oids: [a, b] });
    return found;
  }

  async function isAncestor(ancestor: string, oid: string): Promise<boolean> {
    if (ancestor === oid) return true;
    return (await loadGit()).isDescendent({ ...base, oid, ancestor, depth: -1 });
  }

  /** What a commit changed against its first parent (or the empty tree), file by file with a unified patch. */
  async function diff(sha: string): Promise<FileDiff[]> {
    const c = await readCommit(sha);
    const after = (await snapshot(sha)).files;
    const before = c.parents[0] ? (await snapshot(c.parents[0])).files : new Map<string, string>();
    const out: FileDiff[] = [];
    for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const [b, a] = [before.get(path), after.get(path)];
      if (a === b) continue;
      const [oldText, newText] = [b ? await text(b) : "", a ? await text(a) : ""];
      let additions = 0;
      let deletions = 0;
      for (const part of diffLines(oldText, newText)) {
        if (part.added) additions += part.count ?? 0;
        else if (part.removed) deletions += part.count ?? 0;
      }
      out.push({
        path,
        status: !b ? "added" : !a ? "deleted" : "modified",
        additions,
        deletions,
        patch: createTwoFilesPatch(b ? `a/${path}` : "/dev/null", a ? `b/${path}` : "/dev/null", oldText, newText),
      });
    }
    return out;
  }

  async function branches(): Promise<{ name: string; sha: string }[]> {
    const names = await (await loadGit()).listBranches({ ...base });
    const out: { name: string; sha: string }[] = [];
    for (const name of names.sort()) {
      const sha = await resolve(name);
      if (sha) out.push({ name, sha });
    }
    return out;
  }

  /** Every object reachable from `wants` and not from `haves`: what a clone or fetch needs. */
  async function reachable(wants: string[], haves: string[] = []): Promise<string[]> {
    /** Commits reachable from `from`, not passing through any in `stop`. */
    const commits = async (from: string[], into: Set<string>, stop: ReadonlySet<string>) => {
      const queue = [...from];
      while (queue.length) {
        const oid = queue.pop()!;
        if (into.has(oid) || stop.has(oid)) continue;
        try {
          const { commit } = await (await loadGit()).readCommit({ ...base, oid });
          into.add(oid);
          queue.push(...commit.parent);
        } catch {
          // A have the repository does not hold: nothing to leave out for it.
        }
      }
    };
    const stop = new Set<string>();
    await commits(haves, stop, new Set());
    const wanted = new Set<string>();
    await commits(wants, wanted, stop);
    const out = new Set<string>();
    const stopTrees = new Set<string>();
    for (const h of stop) stopTrees.add((await (await loadGit()).readCommit({ ...base, oid: h })).commit.tree);
    const walkTree = async (tree: string) => {
      if (out.has(tree) || stopTrees.has(tree)) return;
      out.add(tree);
      for (const e of (await (await loadGit()).readTree({ ...base, oid: tree })).tree) {
        if (e.type === "tree") await walkTree(e.oid);
        else if (e.type === "blob") out.add(e.oid);
      }
    };
    for (const oid of wanted) {
      out.add(oid);
      await walkTree((await (await loadGit()).readCommit({ ...base, oid })).commit.tree);
    }
    return [...out];
  }

  async function pack(oids: string[]): Promise<Uint8Array> {
    const { packfile } = await (await loadGit()).packObjects({ ...base, oids });
    return packfile!;
  }

  return {
    base,
    init,
    resolve,
    setRef,
    deleteRef,
    treeOf,
    snapshot,
    text,
    blob,
    writeTree,
    writeCommit,
    readCommit,
    log,
    mergeBase,
    isAncestor,
    diff,
    branches,
    reachable,
    pack,
  };
}

export type Repository = ReturnType<typeof makeRepository>;
