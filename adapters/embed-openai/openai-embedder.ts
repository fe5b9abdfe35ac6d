import { PantheonError } from "../../core/errors";
import type { EmbedPort } from "../../core/ports";

export interface OpenAiEmbedderOptions {
  /** Sent as a Bearer token when present; the local sidecar needs none. */
  apiKey?: string;
  /** e.g. "https://api.openai.com/v1" or the sidecar's "http://127.0.0.1:8790/v1". */
  baseURL: string;
  model: string;
  /** The vector size the model returns; every response is checked against it. */
  dimensions: number;
  /** Also send `dimensions` in the request (text-embedding-3-* can shorten its vectors). */
  requestDimensions?: boolean;
  /** Prefix of the port's `model` id; default "openai" (the sidecar passes "offline"). */
  provider?: string;
  /** Inputs per request; default and maximum 64. */
  batchSize?: number;
  fetch?: typeof fetch;
}

const maxBatch = 64;

interface WireResponse {
  data?: { embedding?: unknown; index?: unknown }[];
  error?: { message?: unknown };
}

/**
 * An {@link EmbedPort} speaking the OpenAI embeddings API (`POST {baseURL}/embeddings`), batched
 * by 64 inputs and order-preserving. Works for OpenAI, any compatible server, and the local
 * sidecar (sidecar/embeddings-server.mjs). Failures throw PantheonError `model_failed`
 * (`rate_limited` on 429) carrying the provider's message, never the API key.
 *
 * @example
 * ```ts
 * const embed = makeOpenAiEmbedder({ apiKey: env.OPENAI_API_KEY, baseURL: "https://api.openai.com/v1",
 *   model: "text-embedding-3-small", dimensions: 1536 });
 * const [vector] = await embed.embed(["hello"]);
 * ```
 */
export function makeOpenAiEmbedder(options: OpenAiEmbedderOptions): EmbedPort {
  const { apiKey, model, dimensions } = options;
  const provider = options.provider ?? "openai";
  const batchSize = options.batchSize ?? maxBatch;
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  if (typeof options.baseURL !== "string" || !/^https?:\/\//.test(options.baseURL)) {
    throw new PantheonError(
      "bad_request",
      `embeddings baseURL must be an http(s) URL, got '${String(options.baseURL)}'`,
    );
  }
  if (typeof model !== "string" || model.length === 0)
    throw new PantheonError("bad_request", "embeddings model must be a non-empty string");
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new PantheonError("bad_request", `embeddings dimensions must be a positive integer, got ${dimensions}`);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > maxBatch) {
    throw new PantheonError("bad_request", `embeddings batchSize must be an integer from 1 to ${maxBatch}`);
  }
  const url = `${options.baseURL.replace(/\/+$/, "")}/embeddings`;

  function redact(text: string): string {
    return apiKey ? text.split(apiKey).join("[redacted]") : text;
  }

  function fail(message: string, status?: number, cause?: unknown): PantheonError {
    return new PantheonError(
      status === 429 ? "rate_limited" : "model_failed",
      redact(`${provider} embeddings failed: ${message}`),
      {
        details: { provider, model, ...(status === undefined ? {} : { status }) },
        ...(cause === undefined ? {} : { cause }),
      },
    );
  }

  async function embedBatch(input: string[]): Promise<number[][]> {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model, input, ...(options.requestDimensions ? { dimensions } : {}) }),
      });
    } catch (error) {
      // The cause is kept for its stack, but its text goes through redact like everything else.
      throw fail(error instanceof Error ? error.message : String(error), undefined, error);
    }
    const text = await response.text();
    let body: WireResponse | undefined;
    try {
      body = JSON.parse(text) as WireResponse;
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const message =
        typeof body?.error?.message === "string" ? body.error.message : text.slice(0, 200) || response.statusText;
      throw fail(`${response.status} ${message}`, response.status);
    }
    if (!body || !Array.isArray(body.data) || body.data.length !== input.length) {
      throw fail(
        `expected ${input.length} embeddings, got ${Array.isArray(body?.data) ? body.data.length : "no data"}`,
        response.status,
      );
    }
    const out: number[][] = new Array(input.length);
    for (const item of body.data) {
      const { embedding, index } = item;
      if (typeof index !== "number" || index < 0 || index >= input.length || out[index] !== undefined) {
        throw fail(`the response has a missing or repeated index ${String(index)}`, response.status);
      }
      if (!Array.isArray(embedding) || embedding.length !== dimensions) {
        throw fail(
          `expected ${dimensions}-dimension vectors, got ${Array.isArray(embedding) ? embedding.length : "none"}`,
          response.status,
        );
      }
      out[index] = embedding as number[];
    }
    return out;
  }

  return {
    model: `${provider}:${model}`,
    dimensions,
    async embed(texts: string[]): Promise<number[][]> {
      // One batch at a time: a Worker may hold only six connections, and providers rate-limit.
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await embedBatch(texts.slice(i, i + batchSize))));
      return out;
    },
  };
}
