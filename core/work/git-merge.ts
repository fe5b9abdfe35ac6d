import { merge as diff3Merge } from "node-diff3";

/** A tree flattened to its files: path → blob id. */
export type FlatTree = ReadonlyMap<string, string>;

/** One file both sides changed differently: its three versions (null: absent there) and the file with conflict markers. */
export interface FileConflict {
  path: string;
  base: string | null;
  ours: string | null;
  theirs: string | null;
  marked: string;
}

/** A file of the merged tree: an existing blob, or text the merge wrote (a clean line merge, or a marked conflict). */
export type MergedFile = { oid: string } | { text: string };

export interface TreeMerge {
  files: Map<string, MergedFile>;
  conflicts: FileConflict[];
}

const markers = { ours: "<<<<<<< feature", split: "=======", theirs: ">>>>>>> task" };

/** Whether a file still holds conflict markers (a resolution that left one is refused). */
export function hasConflictMarkers(text: string): boolean {
  return /^(<<<<<<<|>>>>>>>)( |$)/m.test(text) && /^=======$/m.test(text);
}

/** Paths both sides changed, differently: only their blobs need reading for a line merge. */
export function pathsChangedOnBothSides(base: FlatTree, ours: FlatTree, theirs: FlatTree): string[] {
  const paths = new Set([...ours.keys(), ...theirs.keys(), ...base.keys()]);
  return [...paths]
    .filter((p) => ours.get(p) !== theirs.get(p) && ours.get(p) !== base.get(p) && theirs.get(p) !== base.get(p))
    .sort();
}

/**
 * A three-way merge of two trees from their merge base, git's rules: a path changed on one side
 * only takes that side; changed on both the same way, that; changed on both differently, a line
 * merge (diff3) of the texts, and where the same lines changed, a conflict with both sides and a
 * file marked as git marks it ("<<<<<<< feature", "=======", ">>>>>>> task"). A file deleted on
 * one side and changed on the other is a conflict too.
 * @example
 * mergeTrees({ base, ours, theirs }, (oid) => texts.get(oid)) // { files, conflicts: [] }
 */
export function mergeTrees(
  trees: { base: FlatTree; ours: FlatTree; theirs: FlatTree },
  text: (oid: string) => string,
): TreeMerge {
  const { base, ours, theirs } = trees;
  const files = new Map<string, MergedFile>();
  const conflicts: FileConflict[] = [];
  const paths = [...new Set([...ours.keys(), ...theirs.keys(), ...base.keys()])].sort();
  for (const path of paths) {
    const [o, t, b] = [ours.get(path), theirs.get(path), base.get(path)];
    if (o === t || t === b) {
      if (o !== undefined) files.set(path, { oid: o });
      continue;
    }
    if (o === b) {
      if (t !== undefined) files.set(path, { oid: t });
      continue;
    }
    const [ourText, theirText, baseText] = [
      o === undefined ? null : text(o),
      t === undefined ? null : text(t),
      b === undefined ? null : text(b),
    ];
    if (ourText === null || theirText === null) {
      const marked = `${markers.ours}\n${ourText ?? ""}${ourText && !ourText.endsWith("\n") ? "\n" : ""}${markers.split}\n${theirText ?? ""}${theirText && !theirText.endsWith("\n") ? "\n" : ""}${markers.theirs}\n`;
      conflicts.push({ path, base: baseText, ours: ourText, theirs: theirText, marked });
      files.set(path, { text: marked });
      continue;
    }
    const merged = diff3Merge(ourText.split("\n"), (baseText ?? "").split("\n"), theirText.split("\n"), {
      label: { a: "feature", b: "task" },
    });
    const result = merged.result.join("\n");
    if (merged.conflict) conflicts.push({ path, base: baseText, ours: ourText, theirs: theirText, marked: result });
    files.set(path, { text: result });
  }
  return { files, conflicts };
}
