import { diffArrays } from "diff";

/** A comment as a plan version keeps it: on one 1-based line of that version. */
export interface LineComment {
  line: number;
  body: string;
  author: string;
  createdAt: number;
}

/** One line of two plan versions side by side: kept, added in the newer, or removed from the older. */
export interface ComparedLine<C extends LineComment = LineComment> {
  kind: "same" | "added" | "removed";
  /** The line's number in the older version (kept and removed lines). */
  oldLine?: number;
  /** The line's number in the newer version (kept and added lines). */
  newLine?: number;
  text: string;
  /** The older version's comments on this line (where they were made). */
  comments: C[];
}

export interface PlanComparison<C extends LineComment = LineComment> {
  lines: ComparedLine<C>[];
  added: number;
  removed: number;
  /** Older comments whose line the newer version kept as it was: nothing was changed for them. */
  unaddressed: C[];
  /** Older comments whose line the newer version changed or removed. */
  addressed: C[];
  /** Newer line number → the older comments on that same (unchanged) line, to show beside it. */
  carried: Map<number, C[]>;
}

const splitLines = (markdown: string) => markdown.split(/\r?\n/);

/**
 * Compares two versions of a plan line by line (the `diff` library's array diff: the longest common
 * run of lines, as `git diff` shows it) and places each of the older version's comments on the line
 * it was made on, so a reviewer sees what changed and which comments the change answered.
 *
 * @example
 * const c = comparePlans({ markdown: "a\nb", comments: [{ line: 2, body: "fix b", author: "ann", createdAt: 0 }] }, { markdown: "a\nB" });
 * c.lines.map((l) => l.kind) // ["same", "removed", "added"]
 * c.addressed.length // 1: line 2 changed
 */
export function comparePlans<C extends LineComment>(
  older: { markdown: string; comments: readonly C[] },
  newer: { markdown: string },
): PlanComparison<C> {
  const byLine = new Map<number, C[]>();
  for (const c of older.comments) byLine.set(c.line, [...(byLine.get(c.line) ?? []), c]);
  const lines: ComparedLine<C>[] = [];
  const carried = new Map<number, C[]>();
  const unaddressed: C[] = [];
  const addressed: C[] = [];
  let oldLine = 0;
  let newLine = 0;
  let added = 0;
  let removed = 0;
  for (const part of diffArrays(splitLines(older.markdown), splitLines(newer.markdown))) {
    for (const text of part.value) {
      if (part.added) {
        newLine += 1;
        added += 1;
        lines.push({ kind: "added", newLine, text, comments: [] });
      } else if (part.removed) {
        oldLine += 1;
        removed += 1;
        const comments = byLine.get(oldLine) ?? [];
        addressed.push(...comments);
        lines.push({ kind: "removed", oldLine, text, comments });
      } else {
        oldLine += 1;
        newLine += 1;
        const comments = byLine.get(oldLine) ?? [];
        if (comments.length) {
          unaddressed.push(...comments);
          carried.set(newLine, comments);
        }
        lines.push({ kind: "same", oldLine, newLine, text, comments });
      }
    }
  }
  // A comment on a line past the end (a version shortened later) still counts, as changed.
  const last = splitLines(older.markdown).length;
  for (const [line, comments] of byLine) if (line > last) addressed.push(...comments);
  return { lines, added, removed, unaddressed, addressed, carried };
}

/**
 * Who wrote a comment, as a person reads it: an invited person's name as it is; a plain API token
 * (`token:<name>`) by its name; the deployment's own token is `admin`.
 *
 * @example
 * authorName("token:h5-chat") // "h5-chat"
 * authorName("Ada") // "Ada"
 */
export function authorName(author: string): string {
  return author.startsWith("token:") ? author.slice("token:".length) : author;
}

/**
 * The comments still open when a version is approved: its own, and the previous version's on lines
 * this version kept unchanged (nobody acted on them). Approving with any asks the person to confirm.
 */
export function openComments<C extends LineComment>(
  plan: { markdown: string; comments: readonly C[] },
  previous: { markdown: string; comments: readonly C[] } | null,
): C[] {
  return [...plan.comments, ...(previous ? comparePlans(previous, plan).unaddressed : [])];
}
