// `pantheon memory search | list | show | delete | status | export | import` (admin)
import { ApiError, param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { fields, note, oneLine, plural, printJson, table, time } from "../format.ts";
import { need, output, readText } from "../arguments.ts";

/** The server takes 64 KiB a request; imports go in slices of whole lines below that. */
const sliceBytes = 60 * 1024;

/** JSON lines cut into slices of whole lines, each with the file line number it starts at. */
export function slices(source: string, limit = sliceBytes): { firstLine: number; lines: number; body: string }[] {
  const out: { firstLine: number; lines: number; body: string }[] = [];
  let current: string[] = [];
  let bytes = 0;
  let firstLine = 1;
  const all = source.split("\n");
  if (all.at(-1) === "") all.pop();
  const flush = (nextLine: number) => {
    if (current.some((l) => l.trim())) out.push({ firstLine, lines: current.length, body: current.join("\n") });
    current = [];
    bytes = 0;
    firstLine = nextLine;
  };
  all.forEach((line, i) => {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > limit && current.length) flush(i + 1);
    current.push(line);
    bytes += size;
  });
  flush(all.length + 1);
  return out;
}

const memoryTable = (memories: { id: string; kind: string; importance: number; createdAt: number; text: string }[]) =>
  table(
    ["ID", "KIND", "IMPORTANCE", "CREATED", "TEXT"],
    memories.map((m) => [m.id, m.kind, m.importance.toFixed(2), time(m.createdAt), oneLine(m.text, 70)]),
  );

const listOptions = {
  kind: { type: "string", help: "only this kind (fact, preference, event, summary, chunk, …)" },
  limit: { type: "string", help: "how many (1-200, default 50)" },
} as const;

/**
 * A slice refused whole (a line nested too deep: a 400 whose issue is `line N` of the slice) as the
 * person's file names it: the file's line, and what the slices before it imported.
 */
function inFileLines(error: unknown, file: string, firstLine: number, imported: number): unknown {
  const at = error instanceof ApiError ? /^line (\d+)$/.exec(String(error.details?.issues?.[0]?.path ?? "")) : null;
  if (!(error instanceof ApiError) || !at) return error;
  const line = Number(at[1]) + firstLine - 1;
  const why = error.message.replace(/^line \d+: /, "");
  return new ApiError(error.status, {
    code: error.code,
    message: `${file}:${line}: ${why}; nothing from its slice was kept (${plural(imported, "memory").replace("memorys", "memories")} imported before it)`,
    ...(error.details ? { details: error.details } : {}),
  });
}

export const memory: Command = {
  name: "memory",
  summary: "an agent's memory: search, list, show, delete, status, export and import (JSON lines)",
  actions: [
    {
      name: "search",
      summary: "memories found by words and meaning for a query, best first",
      usage: ['<agent> "<query>" [--kind <kind>] [--limit <n>]'],
      options: listOptions,
      async run({ client: { api, send }, args, values, json }) {
        const agent = need(args, 0, "agent", "memory");
        const q = args.slice(1).join(" ");
        if (!q) throw new UsageError('write what to search for: pantheon memory search <agent> "<query>"', "memory");
        const kind = text(values, "kind");
        const limit = text(values, "limit");
        const body = await send(
          api.api.agents[":name"].memories.$get({
            ...param({ name: agent }),
            query: { q, ...(kind ? { kind: kind as never } : {}), ...(limit ? { limit } : {}) },
          }),
        );
        if (json) return printJson(body);
        if (!body.memories.length) return console.log(`Nothing in ${agent}'s memory matches "${q}".`);
        console.log(memoryTable(body.memories));
      },
    },
    {
      name: "list",
      summary: "memories, newest first",
      usage: ["<agent> [--kind <kind>] [--limit <n>]"],
      options: listOptions,
      async run({ client: { api, send }, args, values, json }) {
        const agent = need(args, 0, "agent", "memory");
        const kind = text(values, "kind");
        const limit = text(values, "limit");
        const body = await send(
          api.api.agents[":name"].memories.$get({
            ...param({ name: agent }),
            query: { ...(kind ? { kind: kind as never } : {}), ...(limit ? { limit } : {}) },
          }),
        );
        if (json) return printJson(body);
        if (!body.memories.length) return console.log(`${agent} remembers nothing yet.`);
        console.log(memoryTable(body.memories));
      },
    },
    {
      name: "show",
      summary: "one memory, superseded ones too",
      usage: ["<agent> <id>"],
      async run({ client: { api, send }, args, json }) {
        const name = need(args, 0, "agent", "memory");
        const id = need(args, 1, "memory's id (pantheon memory list shows it)", "memory");
        const m = await send(api.api.agents[":name"].memories[":id"].$get(param({ name, id })));
        if (json) return printJson(m);
        console.log(
          fields([
            ["id", m.id],
            ["kind", m.kind],
            ["source", m.source],
            ["importance", m.importance.toFixed(2)],
            ["created", time(m.createdAt)],
            ["last used", time(m.lastUsedAt)],
            ["entities", m.entities?.join(", ") || "-"],
            ["provenance", m.provenance],
            ["superseded by", m.supersededBy ?? undefined],
            ["text", m.text],
          ]),
        );
      },
    },
    {
      name: "delete",
      summary: "forget one memory (and its vector)",
      usage: ["<agent> <id>"],
      async run({ client: { api, send }, args, json }) {
        const name = need(args, 0, "agent", "memory");
        const id = need(args, 1, "memory's id", "memory");
        await send(api.api.agents[":name"].memories[":id"].$delete(param({ name, id })));
        if (json) return printJson({ deleted: id });
        console.log(`Deleted memory ${id} of ${name}.`);
      },
    },
    {
      name: "status",
      summary: "counts by kind, bytes, embedder, vectors, memories missing a vector",
      usage: ["<agent>"],
      async run({ client: { api, send }, args, json }) {
        const name = need(args, 0, "agent", "memory");
        const s = await send(api.api.agents[":name"].memories.status.$get(param({ name })));
        if (json) return printJson(s);
        console.log(
          fields([
            [
              "memories",
              `${s.total} (${
                Object.entries(s.byKind)
                  .map(([k, n]) => `${k} ${n}`)
                  .join(", ") || "none"
              }), ${s.superseded} superseded`,
            ],
            ["bytes", `${s.bytes.total} (text ${s.bytes.text}, vectors ${s.bytes.vectors})`],
            ["embedder", `${s.embedder.model} (${s.embedder.dimensions} dimensions, ${s.embedder.backend})`],
            ["vectors", s.vectors.map((v) => `${v.model}: ${v.vectors}`).join(", ") || "none"],
            [
              "missing vectors",
              s.missingVectors
                ? `${s.missingVectors} (pantheon memory import re-embeds; or POST …/memories/reembed)`
                : "0",
            ],
          ]),
        );
      },
    },
    {
      name: "export",
      summary: "every memory as JSON lines, history included",
      usage: ["<agent> [--out <file.jsonl>]"],
      options: { out: { type: "string", help: "write to this file instead of stdout" } },
      async run({ client: { request }, args, values }) {
        const name = need(args, 0, "agent", "memory");
        const body = await request<string>("GET", `/api/agents/${encodeURIComponent(name)}/memories/export`, {
          accept: "application/x-ndjson",
        });
        output(typeof body === "string" ? body : JSON.stringify(body), text(values, "out"));
      },
    },
    {
      name: "import",
      summary: "JSON lines into an agent's memory, in slices, showing progress; good lines are kept, bad ones named",
      usage: ["<agent> <file.jsonl>"],
      async run({ client: { request }, args, json }) {
        const name = need(args, 0, "agent", "memory");
        const file = need(args, 1, "JSON lines file (what pantheon memory export writes)", "memory");
        const parts = slices(readText(file, "memory"));
        const totalLines = parts.reduce((n, p) => n + p.lines, 0);
        let imported = 0;
        let done = 0;
        const errors: { line: number; message: string }[] = [];
        const live = process.stderr.isTTY && !json;
        for (const part of parts) {
          const result = await request<{ imported: number; errors: { line: number; message: string }[] }>(
            "POST",
            `/api/agents/${encodeURIComponent(name)}/memories/import`,
            { body: part.body, contentType: "application/x-ndjson" },
          ).catch((error: unknown) => {
            throw inFileLines(error, file, part.firstLine, imported);
          });
          imported += result.imported;
          // The server numbers lines within its slice; the person wants the file's line numbers.
          errors.push(...result.errors.map((e) => ({ line: e.line + part.firstLine - 1, message: e.message })));
          done += part.lines;
          const progress = `importing ${file}: ${done}/${totalLines} lines (${Math.round((done / totalLines) * 100)}%), ${imported} imported, ${errors.length} refused`;
          if (live) process.stderr.write(`\r${progress}`);
          else if (!json) note(progress);
        }
        if (live) process.stderr.write("\n");
        if (json) return printJson({ imported, errors });
        for (const e of errors) note(`${file}:${e.line}: ${e.message}`);
        console.log(
          `Imported ${plural(imported, "memory").replace("memorys", "memories")} into ${name}${errors.length ? `; ${plural(errors.length, "line")} refused (above)` : ""}.`,
        );
        return errors.length && !imported ? 1 : 0;
      },
    },
  ],
};
