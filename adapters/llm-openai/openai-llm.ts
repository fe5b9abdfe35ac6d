import type OpenAI from "openai";
import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent } from "../../core/ports";
import { LlmError, isRetryableStatus, scrubSecret } from "../../core/models/llm-error";
import { estimateMessageTokens, estimateTokens } from "../../core/models/tokens";
import { makeToolNameCodec } from "../../core/models/tool-names";
import { reportingFetch, sdkRequestOptions } from "../../core/models/sent";
import { fromOpenAiFinish, fromOpenAiToolCalls, makeToolCallAssembler, toOpenAiParams } from "./wire";

/**
 * The SDK, loaded on the first model call rather than at the worker's startup (it is most of the
 * startup CPU of an isolate that may never call this provider). Kept once loaded, for the error checks.
 */
let sdk: typeof import("./sdk") | undefined;
const loadSdk = async (): Promise<typeof import("./sdk")> => (sdk ??= await import("./sdk"));

export interface OpenAiLlmOptions {
  apiKey: string;
  /** Any OpenAI-compatible endpoint, e.g. a local model server at "http://127.0.0.1:8080/v1". */
  baseURL?: string;
  /** Injected transport (tests, proxies); the global fetch when absent. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Provider label in errors and LlmPort.provider (default "openai"). */
  provider?: string;
}

/**
 * LlmPort over OpenAI chat completions (or any compatible server). The SDK's own retries are off:
 * retrying is makeResilientLlm's job, with injected sleep and a fallback.
 * @example
 * const llm = makeOpenAiLlm({ apiKey: env.OPENAI_API_KEY });
 * const reply = await llm.complete({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
 */
export function makeOpenAiLlm(options: OpenAiLlmOptions): LlmPort {
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new LlmError({
      provider: options.provider ?? "openai",
      message: "makeOpenAiLlm needs an apiKey",
      retryable: false,
    });
  }
  const provider = options.provider ?? "openai";
  const compatible = options.baseURL !== undefined && !/^https:\/\/api\.openai\.com\b/.test(options.baseURL);
  // Everything the SDK would otherwise read from process.env (OPENAI_BASE_URL, OPENAI_ORG_ID, ...) is
  // pinned here: under nodejs_compat the worker's vars are process.env, and configuration belongs
  // to chooseLlm, not to whichever variable happens to be set.
  // The client is built on the first call and kept; only the settled SDK and client are kept, never a
  // pending load, so a first call that is abandoned half-way leaves nothing for later calls to wait on.
  let client: OpenAI | undefined;
  const clientNow = async (): Promise<OpenAI> =>
    (client ??= new (await loadSdk()).OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL ?? "https://api.openai.com/v1",
      organization: null,
      project: null,
      // The transport reports when each request has left (LlmRequest.onSent).
      fetch: reportingFetch(options.fetch ?? ((input, init) => fetch(input, init))) as typeof fetch,
      maxRetries: 0,
    }));
  const fail = (error: unknown) => toLlmError(error, provider, options.apiKey);

  return {
    provider,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const names = makeToolNameCodec(request.tools);
      try {
        // The raw response, parsed here: the SDK's own parse arms a second timer per call and adds
        // nothing (it is response.json()), and resilient.ts's deadline already bounds the whole call,
        // body included, through request.signal. Status errors are thrown before this, as APIError.
        const response = await (await clientNow()).chat.completions
          .create(toOpenAiParams(request, names, compatible), sdkRequestOptions(request))
          .asResponse();
        const completion = (await response.json()) as Partial<OpenAI.ChatCompletion> | null;
        if (!completion || !Array.isArray(completion.choices)) {
          throw new LlmError({ provider, message: `${provider} answered without choices`, retryable: true });
        }
        const choice = completion.choices[0];
        const content = choice?.message.content ?? "";
        const toolCalls = fromOpenAiToolCalls(choice?.message.tool_calls, names);
        return {
          content,
          toolCalls,
          finishReason: fromOpenAiFinish(choice?.finish_reason, toolCalls.length > 0),
          usage: {
            inputTokens: completion.usage?.prompt_tokens ?? estimateMessageTokens(request.messages),
            outputTokens: completion.usage?.completion_tokens ?? estimateTokens(content),
          },
          model: completion.model || request.model,
        };
      } catch (error) {
        if (error instanceof LlmError) throw error;
        throw fail(error);
      }
    },

    async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
      const names = makeToolNameCodec(request.tools);
      const calls = makeToolCallAssembler(names);
      let content = "";
      let finish: string | null | undefined;
      let model = request.model;
      let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
      try {
        const chunks = await (await clientNow()).chat.completions.create(
          { ...toOpenAiParams(request, names, compatible), stream: true, stream_options: { include_usage: true } },
          sdkRequestOptions(request),
        );
        for await (const chunk of chunks) {
          if (chunk.model) model = chunk.model;
          if (chunk.usage) usage = chunk.usage;
          const choice = chunk.choices[0];
          if (!choice) continue;
          if (choice.finish_reason) finish = choice.finish_reason;
          const text = choice.delta?.content;
          if (text) {
            content += text;
            yield { type: "token", text };
          }
          for (const delta of choice.delta?.tool_calls ?? []) calls.add(delta);
        }
      } catch (error) {
        throw fail(error);
      }
      const toolCalls = calls.finish();
      for (const call of toolCalls) yield { type: "tool_call", call };
      yield {
        type: "done",
        response: {
          content,
          toolCalls,
          finishReason: fromOpenAiFinish(finish, toolCalls.length > 0),
          usage: {
            inputTokens: usage?.prompt_tokens ?? estimateMessageTokens(request.messages),
            outputTokens: usage?.completion_tokens ?? estimateTokens(content),
          },
          model,
        },
      };
    },
  };
}

/** SDK error → LlmError, classified by the SDK's typed fields; the key is scrubbed from any text. */
function toLlmError(error: unknown, provider: string, apiKey: string): LlmError {
  const clean = (text: string) => scrubSecret(text, apiKey);
  if (sdk && error instanceof sdk.APIUserAbortError) {
    return new LlmError({ provider, message: `${provider} request was aborted`, retryable: false, cause: error });
  }
  if (sdk && error instanceof sdk.APIConnectionTimeoutError) {
    return new LlmError({ provider, message: `${provider} timed out`, retryable: true, cause: error });
  }
  if (sdk && error instanceof sdk.APIConnectionError) {
    return new LlmError({
      provider,
      message: clean(`could not reach ${provider}: ${error.message}`),
      retryable: true,
      cause: error,
    });
  }
  if (sdk && error instanceof sdk.APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const text = typeof body?.message === "string" ? body.message : error.message;
    const status = typeof error.status === "number" ? error.status : undefined;
    return new LlmError({
      provider,
      message: clean(status ? `${provider} returned ${status}: ${text}` : `${provider} failed: ${text}`),
      ...(status ? { status } : {}),
      // A streamed `error` event has no status; providers send them for overload mid-stream.
      retryable: status ? isRetryableStatus(status) : true,
      cause: error,
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new LlmError({ provider, message: clean(`${provider} failed: ${text}`), retryable: false, cause: error });
}
