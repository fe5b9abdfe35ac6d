import type { MessagesClient } from "./sdk";
import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent, ToolCall } from "../../core/ports";
import { LlmError, isRetryableStatus, scrubSecret } from "../../core/models/llm-error";
import { estimateMessageTokens } from "../../core/models/tokens";
import { makeToolNameCodec, parseToolArguments } from "../../core/models/tool-names";
import { reportingFetch, sdkRequestOptions } from "../../core/models/sent";
import { fromAnthropicStop, inputTokensOf, toAnthropicParams } from "./wire";

/**
 * The SDK, loaded on the first model call rather than at the worker's startup (it is most of the
 * startup CPU of an isolate that may never call this provider). Kept once loaded, for the error checks.
 */
let sdk: typeof import("./sdk") | undefined;
const loadSdk = async (): Promise<typeof import("./sdk")> => (sdk ??= await import("./sdk"));

export interface AnthropicLlmOptions {
  apiKey: string;
  baseURL?: string;
  /** Injected transport (tests, proxies); the global fetch when absent. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/**
 * LlmPort over Anthropic's Messages API. The SDK's own retries are off: retrying is
 * makeResilientLlm's job.
 * @example
 * const llm = makeAnthropicLlm({ apiKey: env.ANTHROPIC_API_KEY });
 * const reply = await llm.complete({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] });
 */
export function makeAnthropicLlm(options: AnthropicLlmOptions): LlmPort {
  const provider = "anthropic";
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new LlmError({ provider, message: "makeAnthropicLlm needs an apiKey", retryable: false });
  }
  // Pinned rather than left to process.env (ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN), which under
  // nodejs_compat holds the worker's vars.
  // The client is built on the first call and kept; only the settled SDK and client are kept, never a
  // pending load, so a first call that is abandoned half-way leaves nothing for later calls to wait on.
  let client: MessagesClient | undefined;
  const clientNow = async (): Promise<MessagesClient> =>
    (client ??= new (await loadSdk()).MessagesClient({
      apiKey: options.apiKey,
      authToken: null,
      baseURL: options.baseURL ?? "https://api.anthropic.com",
      // The transport reports when each request has left (LlmRequest.onSent).
      fetch: reportingFetch(options.fetch ?? ((input, init) => fetch(input, init))) as typeof fetch,
      maxRetries: 0,
    }));
  const fail = (error: unknown) => toLlmError(error, options.apiKey);

  return {
    provider,
    async complete(request: LlmRequest): Promise<LlmResponse> {
      const names = makeToolNameCodec(request.tools);
      try {
        const message = await (await clientNow()).messages.create(
          toAnthropicParams(request, names),
          sdkRequestOptions(request),
        );
        let content = "";
        const toolCalls: ToolCall[] = [];
        for (const block of message.content) {
          if (block.type === "text") content += block.text;
          else if (block.type === "tool_use") {
            toolCalls.push({ id: block.id, name: names.fromProvider(block.name), arguments: objectOf(block.input) });
          }
        }
        return {
          content,
          toolCalls,
          finishReason: fromAnthropicStop(message.stop_reason, toolCalls.length > 0),
          usage: { inputTokens: inputTokensOf(message.usage), outputTokens: message.usage.output_tokens },
          model: message.model || request.model,
        };
      } catch (error) {
        throw fail(error);
      }
    },

    async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
      const names = makeToolNameCodec(request.tools);
      const toolBlocks = new Map<number, { id: string; name: string; json: string }>();
      const toolCalls: ToolCall[] = [];
      let content = "";
      let model = request.model;
      let stop: string | null | undefined;
      let inputTokens: number | undefined;
      let outputTokens = 0;
      try {
        const events = await (await clientNow()).messages.create(
          { ...toAnthropicParams(request, names), stream: true },
          sdkRequestOptions(request),
        );
        for await (const event of events) {
          switch (event.type) {
            case "message_start":
              model = event.message.model || model;
              inputTokens = inputTokensOf(event.message.usage);
              outputTokens = event.message.usage.output_tokens ?? 0;
              break;
            case "content_block_start":
              if (event.content_block.type === "tool_use") {
                toolBlocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: "" });
              } else if (event.content_block.type === "text" && event.content_block.text) {
                content += event.content_block.text;
                yield { type: "token", text: event.content_block.text };
              }
              break;
            case "content_block_delta":
              if (event.delta.type === "text_delta") {
                content += event.delta.text;
                yield { type: "token", text: event.delta.text };
              } else if (event.delta.type === "input_json_delta") {
                const block = toolBlocks.get(event.index);
                if (block) block.json += event.delta.partial_json;
              }
              break;
            case "content_block_stop": {
              const block = toolBlocks.get(event.index);
              if (block) {
                const call = {
                  id: block.id,
                  name: names.fromProvider(block.name),
                  arguments: parseToolArguments(block.json),
                };
                toolCalls.push(call);
                yield { type: "tool_call", call };
              }
              break;
            }
            case "message_delta":
              stop = event.delta.stop_reason ?? stop;
              // output_tokens in message_delta is cumulative, not an increment.
              if (typeof event.usage.output_tokens === "number") outputTokens = event.usage.output_tokens;
              if (typeof event.usage.input_tokens === "number") inputTokens = inputTokensOf(event.usage);
              break;
          }
        }
      } catch (error) {
        throw fail(error);
      }
      yield {
        type: "done",
        response: {
          content,
          toolCalls,
          finishReason: fromAnthropicStop(stop, toolCalls.length > 0),
          usage: { inputTokens: inputTokens ?? estimateMessageTokens(request.messages), outputTokens },
          model,
        },
      };
    },
  };
}

function objectOf(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { value: input };
}

/** Error types Anthropic sends in a streamed `error` event (no HTTP status) that are worth a retry. */
const retryableTypes = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

function toLlmError(error: unknown, apiKey: string): LlmError {
  const provider = "anthropic";
  const clean = (text: string) => scrubSecret(text, apiKey);
  if (sdk && error instanceof sdk.APIUserAbortError) {
    return new LlmError({ provider, message: "anthropic request was aborted", retryable: false, cause: error });
  }
  if (sdk && error instanceof sdk.APIConnectionTimeoutError) {
    return new LlmError({ provider, message: "anthropic timed out", retryable: true, cause: error });
  }
  if (sdk && error instanceof sdk.APIConnectionError) {
    return new LlmError({
      provider,
      message: clean(`could not reach anthropic: ${error.message}`),
      retryable: true,
      cause: error,
    });
  }
  if (sdk && error instanceof sdk.APIError) {
    const text = error.apiMessage ?? error.message;
    const status = typeof error.status === "number" ? error.status : undefined;
    return new LlmError({
      provider,
      message: clean(status ? `anthropic returned ${status}: ${text}` : `anthropic failed: ${text}`),
      ...(status ? { status } : {}),
      retryable: status ? isRetryableStatus(status) : retryableTypes.has(error.type ?? ""),
      cause: error,
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new LlmError({ provider, message: clean(`anthropic failed: ${text}`), retryable: false, cause: error });
}
