import { z } from "zod";
import { lazySchema } from "../../../core/lazy-schema";
import { memoryKinds, occurredAtSchema, type MemoryKind } from "../../../core/context";
import { PantheonError } from "../../../core/errors";
import { newMemoryId, type MemoryRecord, type NewMemory } from "./records";
import type { MemoryStore } from "./store";

/** Source names: lower-case slugs. `memory` is the agent's own memory, not a document source. */
export const sourceNamePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const tripleSchema = lazySchema(() =>
  z.strictObject({
    subject: z.string().min(1).max(200),
    relation: z.string().min(1).max(100),
    object: z.string().min(1).max(500),
  }),
);

/** One line of an export, and what an import accepts (only kind and text are required). */
export const memoryLineSchema = lazySchema(() =>
  z.strictObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, "letters, digits, '_' or '-', at most 40")
      .optional(),
    kind: z.enum(memoryKinds as [MemoryKind, ...MemoryKind[]]),
    text: z.string().trim().min(1).max(8000),
    source: z.string().regex(sourceNamePattern).optional(),
    title: z.string().max(300).optional(),
    importance: z.number().min(0).max(1).optional(),
    entities: z.array(z.string().min(1).max(200)).max(50).optional(),
    triple: tripleSchema.optional(),
    provenance: z.string().min(1).max(300).optional(),
    createdAt: z.number().int().min(0).optional(),
    occurredAt: occurredAtSchema.optional(),
    lastUsedAt: z.number().int().min(0).optional(),
    supersededBy: z.string().max(40).optional(),
  }),
);

export interface ImportReport {
  imported: number;
  /** Lines that were not imported, by 1-based line number; every other line was kept. */
  errors: Array<{ line: number; message: string }>;
  warnings: string[];
}

/** One JSON object per line, oldest first, superseded history included. */
export function* exportLines(
  memory: MemoryStore,
  clean: (record: MemoryRecord) => MemoryRecord = (record) => record,
): Generator<string> {
  for (const record of memory.each({ includeSuperseded: true }))
    yield JSON.stringify(clean(record satisfies MemoryRecord)) + "\n";
}

/**
 * Imports JSONL: each good line is kept, each bad one reported with its line number (not JSON, not
 * a memory, an id that already exists). Ids, times and history are preserved, so export → import
 * into a fresh agent gives back the same export.
 *
 * @example
 * await importLines(memory, '{"kind":"fact","text":"The user likes tea"}\nnot json\n') // { imported: 1, errors: [{ line: 2, ... }] }
 */
export async function importLines(memory: MemoryStore, text: string): Promise<ImportReport> {
  const errors: ImportReport["errors"] = [];
  const good: NewMemory[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      errors.push({ line, message: `not JSON: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    const parsed = memoryLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      errors.push({ line, message: `${issue.path.join(".") || "line"}: ${issue.message}` });
      return;
    }
    const m = parsed.data;
    const id = m.id ?? newMemoryId();
    if (seen.has(id) || memory.exists(id)) {
      errors.push({ line, message: `memory '${id}' already exists` });
      return;
    }
    seen.add(id);
    good.push({
      id,
      kind: m.kind,
      text: m.text,
      provenance: m.provenance ?? "import",
      ...(m.source ? { source: m.source } : {}),
      ...(m.title ? { title: m.title } : {}),
      ...(m.importance !== undefined ? { importance: m.importance } : {}),
      ...(m.entities ? { entities: m.entities } : {}),
      ...(m.triple ? { triple: m.triple } : {}),
      ...(m.createdAt !== undefined ? { createdAt: m.createdAt } : {}),
      ...(m.occurredAt !== undefined ? { occurredAt: m.occurredAt } : {}),
      ...(m.lastUsedAt !== undefined ? { lastUsedAt: m.lastUsedAt } : {}),
      ...(m.supersededBy ? { supersededBy: m.supersededBy } : {}),
    });
  });
  const { records, warnings } = await memory.insert(good); // ungated: a person's import, not model output
  return { imported: records.length, errors, warnings };
}

/** Splits a document at paragraph, then sentence, boundaries into chunks of about `maxChars`. */
export function chunkDocument(text: string, maxChars = 1000): string[] {
  const pieces = text
    .split(/\n\s*\n/)
    .flatMap((paragraph) => (paragraph.length <= maxChars ? [paragraph] : paragraph.split(/(?<=[.!?])\s+/)))
    .flatMap((piece) => {
      const out: string[] = [];
      for (let i = 0; i < piece.length; i += maxChars) out.push(piece.slice(i, i + maxChars));
      return out;
    })
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter(Boolean);
  const chunks: string[] = [];
  let current = "";
  for (const piece of pieces) {
    if (current && current.length + 1 + piece.length > maxChars) {
      chunks.push(current);
      current = piece;
    } else current = current ? `${current} ${piece}` : piece;
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * Adds a document to one of the agent's own sources: chunked, each chunk a `chunk` memory of that
 * source (the title leads each chunk so it is found by its title too), embedded like any memory.
 */
export async function addDocument(memory: MemoryStore, source: string, doc: { title: string; text: string }) {
  if (!sourceNamePattern.test(source) || source === "memory") {
    throw new PantheonError("validation_failed", `'${source}' is not a document source name`, {
      details: { issues: [{ path: ["source"], message: "a lower-case slug other than 'memory'" }] },
    });
  }
  const documentId = newMemoryId().replace(/^m/, "d");
  const parts = chunkDocument(doc.text);
  const { records, warnings } = await memory.insert(
    // ungated: a person's document, not model output
    parts.map((part) => ({
      kind: "chunk" as const,
      text: `${doc.title} — ${part}`,
      source,
      title: doc.title,
      provenance: `document:${documentId}`,
      importance: 0.5,
    })),
  );
  return {
    documentId,
    source,
    title: doc.title,
    chunks: records.map((r) => ({ id: r.id, tokens: Math.ceil(r.text.length / 4) })),
    warnings,
  };
}
