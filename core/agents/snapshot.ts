import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { modelSettingsOf } from "../models/project-keys";
import { projectFileAgentSchema, scriptToolSourcesSchema } from "../projects/file";
import { agentNameSchema, type AgentProfile } from "./profile";
import { imageRefSchema } from "../images/snapshot";
import { maxImagesPerMessage } from "../images/limits";

/**
 * An agent captured whole, as JSON lines: a header (its configuration as a project file's agent
 * entry, and the names of the secrets it needs, never their values), then its sessions, its messages
 * in order and its memories with their history. Lines rather than one JSON document so a snapshot of
 * any size restores in slices within a request's limit, each slice idempotent (every line has an
 * id), so a restore cut off halfway is finished by running it again.
 */
export const snapshotFormat = "pantheon-agent-snapshot";
export const snapshotVersion = 1;

const id = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9_:.-]{1,80}$/, "letters, digits, '_', ':', '.' or '-', at most 80"),
);

export const snapshotHeaderSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal("snapshot"),
    format: z.literal(snapshotFormat, { error: `the format is '${snapshotFormat}'` }),
    version: z.literal(snapshotVersion, { error: `this deployment reads snapshot version ${snapshotVersion}` }),
    /** Names this capture: a restore resumed with the same header continues instead of refusing. */
    id: z.uuid(),
    agent: agentNameSchema,
    project: z.string().max(63),
    createdAt: z.number().int().min(0),
    config: projectFileAgentSchema,
    /** The project's script tools the agent lists, as a project file carries them: restored where missing. */
    scriptTools: scriptToolSourcesSchema.optional(),
    /** Secrets the agent names (its tools' headers, its model's keys): set them where it is restored. */
    secrets: z.array(z.string().max(128)).max(200),
    counts: z.strictObject({
      sessions: z.number().int().min(0),
      messages: z.number().int().min(0),
      memories: z.number().int().min(0),
      images: z.number().int().min(0).optional(),
    }),
    /** What a snapshot does not hold (MCP servers, gateways), so a restore can say so. */
    warnings: z.array(z.string().max(500)).max(50).default([]),
  }),
);
export type SnapshotHeader = z.infer<typeof snapshotHeaderSchema>;

export const snapshotSessionSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal("session"),
    id,
    title: z.string().min(1).max(200),
    isDefault: z.boolean(),
    forkedFrom: z.strictObject({ sessionId: id, messageId: id }).optional(),
    createdAt: z.number().int().min(0),
    updatedAt: z.number().int().min(0),
  }),
);
export type SnapshotSession = z.infer<typeof snapshotSessionSchema>;

export const snapshotMessageSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal("message"),
    id,
    sessionId: id,
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string().max(2_100_000),
    name: z.string().max(200).optional(),
    toolCalls: z.unknown().optional(),
    toolCallId: z.string().max(200).optional(),
    runId: z.string().max(80).optional(),
    /** Images sent with the message: refs; their bytes are `image` lines (core/images/snapshot.ts). */
    images: z.array(imageRefSchema).max(maxImagesPerMessage).optional(),
    createdAt: z.number().int().min(0),
  }),
);
export type SnapshotMessage = z.infer<typeof snapshotMessageSchema>;

/** One slice of a snapshot, read: each good line by kind, each bad one by its 1-based line number. */
export interface SnapshotSlice {
  header?: SnapshotHeader;
  sessions: Array<{ line: number; value: SnapshotSession }>;
  messages: Array<{ line: number; value: SnapshotMessage }>;
  /** Memory lines as the memory export writes them (the agent's memory import checks them). */
  memories: Array<{ line: number; text: string }>;
  errors: Array<{ line: number; message: string }>;
}

const issueText = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "line"}: ${issue.message}`;
};

/**
 * Reads a slice of snapshot lines. The header may only be the first line of a slice (a restore
 * sends it alone, first); a line of an unknown type is refused by name, so a newer snapshot's parts
 * are reported rather than silently dropped.
 * @example
 * readSnapshotSlice('{"type":"session","id":"s1","title":"Default","isDefault":true,"createdAt":1,"updatedAt":1}\nnope')
 * // { sessions: [{ line: 1, value: { … } }], messages: [], memories: [], errors: [{ line: 2, message: "not JSON: …" }] }
 */
export function readSnapshotSlice(text: string): SnapshotSlice {
  const slice: SnapshotSlice = { sessions: [], messages: [], memories: [], errors: [] };
  let first = true;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    const isFirst = first;
    first = false;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      slice.errors.push({ line, message: `not JSON: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    const type =
      value && typeof value === "object" && !Array.isArray(value) ? (value as { type?: unknown }).type : undefined;
    if (type === "snapshot") {
      if (!isFirst)
        return void slice.errors.push({
          line,
          message: "type: the snapshot header may only be the first line of a request",
        });
      const parsed = snapshotHeaderSchema.safeParse(value);
      if (parsed.success) slice.header = parsed.data;
      else slice.errors.push({ line, message: issueText(parsed.error) });
    } else if (type === "session") {
      const parsed = snapshotSessionSchema.safeParse(value);
      if (parsed.success) slice.sessions.push({ line, value: parsed.data });
      else slice.errors.push({ line, message: issueText(parsed.error) });
    } else if (type === "message") {
      const parsed = snapshotMessageSchema.safeParse(value);
      if (parsed.success) slice.messages.push({ line, value: parsed.data });
      else slice.errors.push({ line, message: issueText(parsed.error) });
    } else if (type === "memory") {
      const { type: _, ...memory } = value as Record<string, unknown>;
      slice.memories.push({ line, text: JSON.stringify(memory) });
    } else {
      // An image line (core/images/snapshot.ts) is the worker's: it stores the bytes before the agent reads the rest.
      slice.errors.push({
        line,
        message: `type: '${String(type)}' is not a snapshot line (snapshot, session, message, memory or image)`,
      });
    }
  });
  return slice;
}

/**
 * The secrets an agent names (never their values): its HTTP tools' and A2A peers' header secrets, its
 * script tools' declared secrets and its model's keys. A restore elsewhere needs each set there.
 * @example
 * secretsNamedBy({ model: { provider: "openai", name: "gpt-4o" }, runtime: { httpTools: [{ headers: { authorization: { secret: "CRM_KEY" } } }], a2aAgents: [] } })
 * // ["CRM_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"]
 */
export function secretsNamedBy(profile: Pick<AgentProfile, "model" | "runtime" | "scriptTools">): string[] {
  const names = new Set<string>();
  const fromHeaders = (headers: Record<string, string | { secret: string }>) => {
    for (const value of Object.values(headers)) if (typeof value !== "string") names.add(value.secret);
  };
  for (const tool of profile.runtime.httpTools ?? []) fromHeaders(tool.headers);
  for (const peer of profile.runtime.a2aAgents ?? []) fromHeaders(peer.headers);
  for (const tool of Object.values(profile.scriptTools ?? {})) for (const secret of tool.secrets) names.add(secret);
  for (const setting of modelSettingsOf(profile.model)) names.add(setting);
  return [...names].sort();
}
