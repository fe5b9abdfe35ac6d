/**
 * The ports Pantheon's core talks through. Adapters (adapters/<name>/) implement them as closure
 * factories; the Durable Objects choose one per port from configuration. No Cloudflare imports here.
 */

/** OpenAI-style chat message: the one message shape used everywhere in core. */
export type Role = "system" | "user" | "assistant" | "tool";

/** A tool call the model proposed. `arguments` is already parsed JSON (an object). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface Message {
  role: Role;
  content: string;
  /** Speaker name (OpenAI `name`), e.g. the asking agent on a delegated request. */
  name?: string;
  /** Present on assistant messages that proposed tool calls. */
  toolCalls?: ToolCall[];
  /** Present on `tool` messages: which call this result answers. */
  toolCallId?: string;
  /** Images a person sent with the message (user messages): refs to the agent's image store, never the bytes. */
  images?: ImageRef[];
}

/** An image in an agent's store (core/images): its id is its content's SHA-256 and extension. */
export interface ImageRef {
  id: string;
  /** The sniffed type: image/png, image/jpeg, image/webp or image/gif. */
  type: string;
  bytes: number;
  width?: number;
  height?: number;
}

/** Whose store an image is in: one per project and agent. */
export interface ImageOwner {
  project: string;
  agent: string;
}

/**
 * Where images are kept (adapters/image-r2): content-addressed per project and agent, so storing the
 * same bytes again writes nothing new. Refs are checked bytes (core/images imageRefOf).
 */
export interface ImageStorePort {
  put(owner: ImageOwner, ref: ImageRef, bytes: Uint8Array): Promise<void>;
  /** The ref of a stored image, or null (no bytes read). */
  head(owner: ImageOwner, id: string): Promise<ImageRef | null>;
  /** A stored image's ref and bytes as a stream, or null. */
  open(owner: ImageOwner, id: string): Promise<{ ref: ImageRef; body: ReadableStream<Uint8Array> } | null>;
  /** A stored image's bytes, or null. */
  read(owner: ImageOwner, id: string): Promise<Uint8Array | null>;
  /** Every image of the owner (an export writes them). */
  list(owner: ImageOwner): Promise<ImageRef[]>;
  /** Deletes every image of the owner (the agent or its project is deleted: a new agent of that name starts empty). */
  removeAll(owner: ImageOwner): Promise<number>;
}

/** What a model sees of a tool: the subset of ToolSpec the providers need. */
export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema (object) of the arguments. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  /** Provider's model id, e.g. "gpt-4o-mini", "claude-sonnet-4-5", "offline". */
  model: string;
  messages: Message[];
  tools?: ModelTool[];
  temperature?: number;
  /** Nucleus sampling, passed to the provider as `top_p`. */
  topP?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** A cascade moved past a model (core/models cascade): the run writes each as a trace step. */
  onHop?: (hop: ModelHop) => void;
  /**
   * Called once the request has been handed to the network (again on each retry); a port with no
   * network of its own calls it as it starts. A Durable Object holds every subrequest until its
   * pending storage writes commit, so a caller that writes only after this overlaps its commit with
   * the model's answer instead of delaying the request by it (durable-objects/agent/runs/held-writes.ts). Every port calls it.
   */
  onSent?: () => void;
  /**
   * The bytes (base64) of the images the messages carry, by image id: loaded from the agent's store
   * when the call is built, for the messages that go to the model only (durable-objects/agent/runs/images.ts).
   * An adapter sends each as its provider's image part; an image without bytes here is named in text.
   */
  imageData?: Record<string, string>;
}

/** A cascade passing over one model for the next, and why. */
export interface ModelHop {
  from: { provider: string; model: string };
  /** The next model tried; absent when it was the last. */
  to?: { provider: string; model: string };
  /** `error`: the call failed; `breaker_open`: its provider's circuit breaker is open, so no call; `unavailable`: it cannot be called here. */
  reason: "error" | "breaker_open" | "unavailable";
  /** For `error`: what kind (core/models failureKindOf): rate_limited, auth, timeout, server_error, connection, rejected. */
  kind?: string;
  message: string;
}

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "error";

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResponse {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: LlmUsage;
  /** The model that actually answered (providers may resolve aliases). */
  model: string;
  /** The provider that actually answered (set where the port is chosen, so a fallback shows as itself). */
  provider?: string;
}

/** Streamed events; the last event of a successful stream is always `done`. */
export type LlmStreamEvent =
  | { type: "token"; text: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "done"; response: LlmResponse };

export interface LlmPort {
  /** "openai" | "anthropic" | "workers-ai" | "offline" | ... */
  readonly provider: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
  stream(request: LlmRequest): AsyncIterable<LlmStreamEvent>;
}

/** Text embeddings. Vectors from one EmbedPort share one space of `dimensions`. */
export interface EmbedPort {
  /** Identifies the vector space, e.g. "openai:text-embedding-3-small" or "offline:use-lite". */
  readonly model: string;
  readonly dimensions: number;
  /**
   * What its vectors hold: "meaning" (a trained model, the default) or only "words" (a hashed bag of
   * words). The context engine trusts a words-only space less when it fuses it with full-text search.
   */
  readonly captures?: "words" | "meaning";
  embed(texts: string[]): Promise<number[][]>;
}

export type VectorMetadata = Record<string, string | number | boolean>;

export interface VectorRecord {
  id: string;
  values: number[];
  metadata?: VectorMetadata;
}

export interface VectorMatch {
  id: string;
  /** Cosine similarity, higher is closer. */
  score: number;
  metadata?: VectorMetadata;
}

export interface VectorQuery {
  topK: number;
  /** Equality filters on metadata keys (e.g. `{ source: "docs", kind: "fact" }`). */
  filter?: VectorMetadata;
}

/** A vector index scoped to one agent (Vectorize: a namespace per agent; local: the agent's SQLite). */
export interface VectorPort {
  upsert(records: VectorRecord[]): Promise<void>;
  query(values: number[], query: VectorQuery): Promise<VectorMatch[]>;
  deleteByIds(ids: string[]): Promise<void>;
}

/** Time, injected so core logic is deterministic in tests. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A value SQLite hands back or accepts: BLOBs arrive as ArrayBuffer (Durable Object SQL). */
export type SqlValue = ArrayBuffer | string | number | null;

export interface SqlCursorLike<T> {
  toArray(): T[];
  one(): T;
}

/**
 * The part of a Durable Object's `ctx.storage.sql` that raw-SQL code needs (full-text search and the
 * vector index; everything else goes through drizzle), so that code carries no Cloudflare import and
 * runs over any synchronous SQLite (the benchmarks use a fake over a Map).
 */
export interface SqlLike {
  // biome-ignore lint/suspicious/noExplicitAny: bindings are whatever the SQL statement takes; SQLite checks them
  exec<T extends Record<string, SqlValue>>(query: string, ...bindings: any[]): SqlCursorLike<T>;
}
