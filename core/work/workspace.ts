import { createTwoFilesPatch, diffLines } from "diff";
import { PantheonError } from "../errors";

/** Limits of a feature workspace: each is a refusal with the field and the limit, never a crash. */
export const workspaceLimits = {
  pathChars: 512,
  pathDepth: 32,
  /** Bytes of one file's content (a file over it is refused). */
  fileBytes: 1024 * 1024,
  /** Files one overlay may touch. */
  overlayFiles: 1_000,
};

/**
 * A workspace path, checked and normalized: relative, '/'-separated, no '.' or '..' segments, no
 * empty segments, no backslashes or control characters. Files live only inside the feature's tree.
 * @example
 * checkPath("src/app.ts")   // "src/app.ts"
 * checkPath("../etc/passwd") // throws 400: path segments '.' and '..' are not allowed
 */
export function checkPath(path: unknown, field = "path"): string {
  const refuse = (message: string) => {
    throw new PantheonError("validation_failed", `${field} is not a valid workspace path: ${message}`, {
      details: { issues: [{ path: [field], message }] },
    });
  };
  if (typeof path !== "string" || path.length === 0) return refuse("a non-empty relative path such as 'src/app.ts'");
  if (path.length > workspaceLimits.pathChars) return refuse(`at most ${workspaceLimits.pathChars} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a path with a control character is refused
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return refuse("no control characters or backslashes");
  const trimmed = path.replace(/^\.\//, "");
  if (trimmed.startsWith("/")) return refuse("relative to the workspace, not starting with '/'");
  const segments = trimmed.replace(/\/+$/, "").split("/");
  if (segments.some((s) => s === "")) return refuse("no empty segments ('//')");
  if (segments.some((s) => s === "." || s === "..")) return refuse("path segments '.' and '..' are not allowed");
  if (segments.length > workspaceLimits.pathDepth) return refuse(`at most ${workspaceLimits.pathDepth} levels deep`);
  return segments.join("/");
}

/** A directory prefix for listings: '' (the root) or a checked path ending in '/'. */
export function checkPrefix(prefix: unknown): string {
  if (prefix === undefined || prefix === null || prefix === "" || prefix === "/" || prefix === ".") return "";
  return `${checkPath(prefix, "prefix")}/`;
}

/** One change an overlay holds: new content, or null for a deletion, and the file's version it started from (0: it did not exist). */
export interface OverlayChange {
  path: string;
  content: string | null;
  baseVersion: number;
}

export interface FileStat {
  path: string;
  change: "added" | "modified" | "deleted";
  insertions: number;
  deletions: number;
}

export interface DiffStats {
  filesChanged: number;
  insertions: number;
  deletions: number;
  files: FileStat[];
}

/** Lines added and removed between two texts (jsdiff's line diff). */
function lineCounts(before: string, after: string): { insertions: number; deletions: number } {
  let insertions = 0;
  let deletions = 0;
  for (const part of diffLines(before, after)) {
    const lines = part.count ?? 0;
    if (part.added) insertions += lines;
    else if (part.removed) deletions += lines;
  }
  return { insertions, deletions };
}

/**
 * Diff stats of an overlay against the tree it applies to: files changed, lines inserted and
 * deleted, per file. A change that leaves a file as it was counts as no change.
 */
export function diffStats(overlay: readonly OverlayChange[], committed: ReadonlyMap<string, string>): DiffStats {
  const files: FileStat[] = [];
  for (const change of [...overlay].sort((a, b) => a.path.localeCompare(b.path))) {
    const before = committed.get(change.path);
    if (change.content === null && before === undefined) continue;
    if (change.content !== null && before === change.content) continue;
    const kind: FileStat["change"] = change.content === null ? "deleted" : before === undefined ? "added" : "modified";
    files.push({ path: change.path, change: kind, ...lineCounts(before ?? "", change.content ?? "") });
  }
  return {
    filesChanged: files.length,
    insertions: files.reduce((n, f) => n + f.insertions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    files,
  };
}

/** A unified diff of an overlay (what a person reviews), one file after another. */
export function unifiedDiff(overlay: readonly OverlayChange[], committed: ReadonlyMap<string, string>): string {
  return [...overlay]
    .sort((a, b) => a.path.localeCompare(b.path))
    .filter((c) => (c.content ?? undefined) !== committed.get(c.path))
    .map((c) =>
      createTwoFilesPatch(
        committed.has(c.path) ? `a/${c.path}` : "/dev/null",
        c.content === null ? "/dev/null" : `b/${c.path}`,
        committed.get(c.path) ?? "",
        c.content ?? "",
      ),
    )
    .join("");
}
