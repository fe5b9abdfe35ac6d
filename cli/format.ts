// How the CLI shows things to a person: aligned tables, short times, one-line previews.

/** `2025-06-01 14:03:07` in local time; `-` for nothing. */
export function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "-";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `12 ms`, `1.4 s`, `2 min 5 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "-";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** One line, at most `max` characters: for previews of arguments and messages in tables. */
export function oneLine(value: unknown, max = 60): string {
  const text = (typeof value === "string" ? value : (JSON.stringify(value) ?? "")).replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A table with a header row, columns padded to their widest cell (the last column is not padded). */
export function table(headers: string[], rows: unknown[][]): string {
  const cells = [headers, ...rows.map((row) => row.map((c) => (c === null || c === undefined ? "-" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells
    .map((row) =>
      row
        .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** `key: value` lines, keys aligned; entries whose value is undefined are left out. */
export function fields(entries: [string, unknown][]): string {
  const shown = entries.filter(([, v]) => v !== undefined);
  const width = Math.max(...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v === null ? "-" : v}`).join("\n");
}

export const printJson = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

/** A line for the person on stderr (notes, progress), leaving stdout to the command's output. */
export const note = (line: string): void => void process.stderr.write(`${line}\n`);

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
