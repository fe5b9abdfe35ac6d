import { css } from "lit";

/**
 * Styles every view shares. Colours come from CSS custom properties set on :root in
 * index.html, which pierce shadow roots, so one theme switch repaints every component.
 */
export const base = css`
  :host { display: block; color: var(--text); font: inherit; }
  * { box-sizing: border-box; }
  h1, h2, h3 { margin: 0 0 .5rem; line-height: 1.25; }
  h2 { font-size: 1.25rem; }
  h3 { font-size: 1rem; }
  p { margin: .25rem 0 .75rem; }
  a { color: var(--link); }
  .muted { color: var(--muted); }
  .small { font-size: .85rem; }
  .card { background: var(--surface); border: 1px solid var(--border); border-radius: 14px; padding: 1rem; }
  .stack > * + * { margin-top: .75rem; }
  .row { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
  .spacer { flex: 1; }
  button, .button {
    font: inherit; font-weight: 600; border-radius: 10px; border: 1px solid var(--border); background: var(--surface-2);
    color: var(--text); padding: .55rem .9rem; min-height: 44px; cursor: pointer; text-decoration: none;
    display: inline-flex; align-items: center; gap: .4rem; justify-content: center;
  }
  button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-contrast); }
  button.danger { background: transparent; border-color: var(--danger); color: var(--danger); }
  button.ghost { background: transparent; border-color: transparent; }
  button:disabled { opacity: .55; cursor: default; }
  button:focus-visible, a:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible, summary:focus-visible, [tabindex]:focus-visible {
    outline: 3px solid var(--focus); outline-offset: 2px;
  }
  label { display: block; font-weight: 600; font-size: .9rem; margin-bottom: .25rem; }
  input, textarea, select {
    font: inherit; width: 100%; color: var(--text); background: var(--field); border: 1px solid var(--border-strong);
    border-radius: 10px; padding: .6rem .7rem; min-height: 44px;
  }
  input[type="checkbox"] { width: auto; min-height: 0; }
  textarea { resize: vertical; }
  .field { margin-bottom: .75rem; }
  .hint { font-size: .8rem; color: var(--muted); margin-top: .2rem; }
  .alert { border-radius: 10px; padding: .7rem .9rem; border: 1px solid var(--border); background: var(--surface-2); }
  .alert.error { border-color: var(--danger); background: var(--danger-soft); color: var(--text); }
  .alert.info { border-color: var(--accent); background: var(--accent-soft); }
  .badge {
    display: inline-block; font-size: .75rem; font-weight: 700; padding: .15rem .5rem; border-radius: 999px;
    background: var(--surface-2); color: var(--text); border: 1px solid var(--border); white-space: nowrap;
  }
  .badge.ok { color: var(--ok); border-color: var(--ok); }
  .badge.warn { color: var(--warn); border-color: var(--warn); }
  .badge.bad { color: var(--danger); border-color: var(--danger); }
  .badge.run { color: var(--link); border-color: var(--link); }
  pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
  pre { background: var(--surface-2); border-radius: 10px; padding: .75rem; overflow: auto; margin: .25rem 0; white-space: pre-wrap; word-break: break-word; }
  table { width: 100%; border-collapse: collapse; }
  th, td { text-align: left; padding: .6rem .5rem; border-bottom: 1px solid var(--border); vertical-align: top; }
  th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
  details > summary { cursor: pointer; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** Fires a bubbling, composed event so it crosses shadow roots up to `<pantheon-app>`. */
export function emit<T>(from: HTMLElement, name: string, detail?: T): void {
  from.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
}

export function statusBadge(status: string | undefined | null): string {
  switch (status) {
    case "completed":
    case "idle":
      return "badge ok";
    case "running":
    case "waiting_tool":
    case "waiting_agent":
      return "badge run";
    case "waiting_approval":
      return "badge warn";
    case "failed":
    case "cancelled":
      return "badge bad";
    default:
      return "badge";
  }
}

export function statusLabel(status: string | undefined | null): string {
  return (status ?? "unknown").replace(/_/g, " ");
}

export function timeAgo(value: string | number | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === "") return "never";
  const t = typeof value === "number" ? (value < 1e12 ? value * 1000 : value) : Date.parse(value);
  if (Number.isNaN(t)) return "unknown";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

/** When something will happen: "in 59 min", "in 3 h", then the date. */
export function timeUntil(value: number, now = Date.now()): string {
  const s = Math.round((value - now) / 1000);
  if (s < 45) return s < -45 ? `overdue since ${new Date(value).toLocaleTimeString()}` : "any moment now";
  if (s < 5400) return `in ${Math.round(s / 60)} min`;
  if (s < 86400) return `in ${Math.round(s / 3600)} h`;
  return new Date(value).toLocaleString();
}

/** Tool outputs are often JSON in a string: show them indented. */
export function prettyOutput(value: unknown): string {
  if (typeof value === "string" && /^\s*[[{]/.test(value)) {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return pretty(value);
}

export function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
