// `pantheon agents snapshot | restore`: an agent whole, as one JSON-lines file, into any project or deployment.
import { UsageError } from "../client.ts";
import { text, type Action } from "../command.ts";
import { note, plural, printJson } from "../format.ts";
import { need, output, readText } from "../arguments.ts";
import { slices } from "./memory.ts";

interface Header {
  type: "snapshot";
  agent: string;
  project: string;
  secrets: string[];
  counts: { sessions: number; messages: number; memories: number; images?: number };
  warnings?: string[];
}
interface RestoreReport {
  sessions: number;
  messages: number;
  memories: number;
  images?: number;
  existing: number;
  errors: { line: number; message: string }[];
  warnings?: string[];
  secrets?: { name: string; set: boolean }[];
}

const headerOf = (source: string, file: string): { header: Header; headerLine: string; rest: string } => {
  const end = source.indexOf("\n");
  const headerLine = end === -1 ? source : source.slice(0, end);
  let header: Header;
  try {
    header = JSON.parse(headerLine) as Header;
  } catch (error) {
    throw new UsageError(
      `'${file}' is not a snapshot: its first line is not JSON (${(error as Error).message})`,
      "agents",
    );
  }
  if (header?.type !== "snapshot")
    throw new UsageError(
      `'${file}' is not a snapshot: its first line is not a snapshot header (what pantheon agents snapshot writes)`,
      "agents",
    );
  return { header, headerLine, rest: end === -1 ? "" : source.slice(end + 1) };
};

export const snapshotActions: Action[] = [
  {
    name: "snapshot",
    summary:
      "an agent whole as one file: configuration, sessions, messages and memories (secrets named, never included)",
    usage: ["<agent> [--out <file.jsonl>]"],
    options: { out: { type: "string", help: "write to this file instead of stdout" } },
    async run({ client: { request }, args, values }) {
      const name = need(args, 0, "agent", "agents");
      const body = await request<string>("GET", `/api/agents/${encodeURIComponent(name)}/snapshot`, {
        accept: "application/x-ndjson",
      });
      output(body, text(values, "out"));
      const { header } = headerOf(body, "the snapshot");
      const { sessions, messages, memories } = header.counts;
      note(
        `Snapshot of ${name}: ${plural(sessions, "session")}, ${plural(messages, "message")}, ${header.counts.images ? `${plural(header.counts.images, "image")}, ` : ""}${memories} ${memories === 1 ? "memory" : "memories"}.`,
      );
      if (header.secrets.length)
        note(
          `It names these secrets (not their values): ${header.secrets.join(", ")}. Set them where you restore it: pantheon secrets set <NAME>.`,
        );
      for (const w of header.warnings ?? []) note(`warning: ${w}`);
    },
  },
  {
    name: "restore",
    summary:
      "make an agent from a snapshot file, in this project (or --project, or another PANTHEON_URL); run again to finish a cut-off restore",
    usage: ["<file.jsonl> [--name <agent>] [--into-existing]"],
    options: {
      name: { type: "string", help: "the new agent's name (default: the snapshot's)" },
      "into-existing": {
        type: "boolean",
        help: "add the snapshot's history and memories to an agent that exists (also finishes a restore that was cut off)",
      },
    },
    async run({ client: { request }, args, values, json }) {
      const file = need(args, 0, "snapshot file (what pantheon agents snapshot writes)", "agents");
      const { header, headerLine, rest } = headerOf(readText(file, "agents"), file);
      const name = text(values, "name") ?? header.agent;
      const path = `/api/agents/${encodeURIComponent(name)}/snapshot/restore`;
      const total: RestoreReport = { sessions: 0, messages: 0, memories: 0, existing: 0, errors: [], warnings: [] };
      const live = process.stderr.isTTY && !json;
      if (values["into-existing"] !== true) {
        const made = await request<RestoreReport>("POST", path, {
          body: headerLine + "\n",
          contentType: "application/x-ndjson",
        });
        total.secrets = made.secrets;
        total.warnings!.push(...(made.warnings ?? []));
        if (!json) note(`Made agent ${name} from ${header.project}/${header.agent}.`);
      }
      // Images go up one by one as uploads (each up to 5 MiB: more than a slice); their lines are left blank.
      const lines0 = rest.split("\n");
      for (let index = 0; index < lines0.length; index++) {
        if (!/^\{\s*"type"\s*:\s*"image"/.test(lines0[index]!)) continue;
        const image = JSON.parse(lines0[index]!) as { id: string; mediaType: string; data: string };
        lines0[index] = "";
        const stored = await request<{ id: string }>("POST", `/api/agents/${encodeURIComponent(name)}/images`, {
          body: Uint8Array.from(Buffer.from(image.data, "base64")),
          contentType: image.mediaType,
        });
        if (stored.id === image.id) total.images = (total.images ?? 0) + 1;
        else
          total.errors.push({
            line: index + 2,
            message: `image '${image.id}' was stored as '${stored.id}': its bytes do not match its id`,
          });
      }
      const parts = slices(lines0.join("\n"));
      let done = 0;
      const lines = parts.reduce((n, p) => n + p.lines, 0);
      for (const part of parts) {
        const report = await request<RestoreReport>("POST", path, {
          body: part.body,
          contentType: "application/x-ndjson",
        });
        for (const key of ["sessions", "messages", "memories", "existing"] as const) total[key] += report[key];
        // The server numbers lines within its slice; the person wants the file's (the header is line 1).
        total.errors.push(...report.errors.map((e) => ({ line: e.line + part.firstLine, message: e.message })));
        total.warnings!.push(...(report.warnings ?? []));
        done += part.lines;
        const progress = `restoring ${file}: ${done}/${lines} lines (${Math.round((done / lines) * 100)}%)`;
        if (live) process.stderr.write(`\r${progress}`);
      }
      if (live) process.stderr.write("\n");
      if (json) return printJson({ agent: name, ...total });
      for (const e of total.errors) note(`${file}:${e.line}: ${e.message}`);
      for (const w of total.warnings ?? []) note(`warning: ${w}`);
      const missing = (total.secrets ?? []).filter((s) => !s.set).map((s) => s.name);
      if (missing.length)
        note(
          `This project lacks secrets the agent names: ${missing.join(", ")}. Set them with pantheon secrets set <NAME>.`,
        );
      const again = total.existing ? ` (${total.existing} already there)` : "";
      console.log(
        `Restored ${plural(total.sessions, "session")}, ${plural(total.messages, "message")}${total.images ? `, ${plural(total.images, "image")}` : ""} and ${total.memories} ${total.memories === 1 ? "memory" : "memories"} into ${name}${again}${total.errors.length ? `; ${plural(total.errors.length, "line")} refused (above)` : ""}.`,
      );
      return total.errors.length ? 1 : 0;
    },
  },
];
