import { css, html } from "lit";

/** The board's columns: what waits for a person first (Blocked), then work under way, then the rest. */
export const boardColumns = [
  { id: "blocked", title: "Blocked", statuses: ["blocked"] },
  { id: "in_progress", title: "In progress", statuses: ["in_progress"] },
  { id: "pending", title: "Pending", statuses: ["pending"] },
  { id: "done", title: "Done", statuses: ["done"] },
  { id: "stopped", title: "Failed, partial or cancelled", statuses: ["failed", "partial", "cancelled"] },
] as const;

export function taskBadge(status: string): string {
  switch (status) {
    case "done":
      return "badge ok";
    case "in_progress":
      return "badge run";
    case "blocked":
    case "partial":
      return "badge warn";
    case "failed":
    case "cancelled":
      return "badge bad";
    default:
      return "badge";
  }
}

export function featureBadge(status: string): string {
  return status === "done"
    ? "badge ok"
    : status === "in_progress"
      ? "badge run"
      : status === "approved"
        ? "badge ok"
        : "badge";
}

export const statusText = (status: string) => status.replace(/_/g, " ");

/** "3 pending · 1 done" as badges. */
export function taskCounts(tasks: { total: number; byStatus: Record<string, number> }) {
  return Object.entries(tasks.byStatus)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => html`<span class=${taskBadge(status)}>${n} ${statusText(status)}</span>`);
}

/** "+12 −3 · 2 files", or nothing changed. */
export function diffLabel(diff: { filesChanged: number; insertions: number; deletions: number }): string {
  if (diff.filesChanged === 0) return "no changes";
  return `+${diff.insertions} −${diff.deletions} · ${diff.filesChanged} file${diff.filesChanged === 1 ? "" : "s"}`;
}

export function when(ms: number | null | undefined): string {
  return ms ? new Date(ms).toLocaleString() : "—";
}

/** The class of one line of a unified diff: a header or hunk line, an added or a removed line. */
export function diffClass(line: string): string {
  if (
    line.startsWith("+++") ||
    line.startsWith("---") ||
    line.startsWith("@@") ||
    line.startsWith("Index:") ||
    line.startsWith("===")
  )
    return "hunk";
  return line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
}

/** A unified diff, one line per row, scrolled sideways on a phone rather than wrapped. */
export const diffStyles = css`
  .diff { padding: 0; overflow-x: auto; white-space: pre; word-break: normal; }
  .diff span { display: block; padding: 0 .6rem; }
  .diff .add { background: color-mix(in srgb, var(--ok) 16%, transparent); }
  .diff .del { background: color-mix(in srgb, var(--danger) 16%, transparent); }
  .diff .hunk { color: var(--muted); }
`;
