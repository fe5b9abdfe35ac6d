import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent, Message, ToolCall } from "../../core/ports";
import { LlmError, isRetryableStatus } from "../../core/models/llm-error";
import { estimateMessageTokens, estimateTokens } from "../../core/models/tokens";
import { makeToolNameCodec, parseToolArguments, type ToolNameCodec } from "../../core/models/tool-names";
import { imagesOf, unseenImagesNote } from "../../core/images/parts";

/**
 * Workers AI models that see images (its catalogue's "Vision" tag): they take OpenAI-style
 * `image_url` parts with a data URL in `messages`. LLaVA and UForm take one `image` (bytes) beside a prompt.
 */
const visionModel = /vision|llama-4-scout|gemma-3|mistral-small-3\.1|kimi-k2\.5|qwen.*-vl/i;
const imagePromptModel = /llava|uform-gen/i;

/** Whether a Workers AI model sees images (others get a note saying what was sent that they cannot see). */
export const workersAiSeesImages = (model: string) => visionModel.test(model) || imagePromptModel.test(model);

/** The slice of the Workers AI binding this adapter uses, so core never imports Cloudflare types. */
export interface WorkersAiBinding {
  run(model: string, input: unknown, options?: unknown): Promise<unknown>;
}

export interface WorkersAiLlmOptions {
  ai: WorkersAiBinding;
}

/**
 * LlmPort over the Workers AI binding (production only). Tools use Workers AI's "traditional"
 * function calling (`{ name, description, parameters }` in, `tool_calls: [{ name, arguments }]` out);
 * models that answer in the OpenAI chat shape (`choices[0].message`) are read too.
 *
 * `stream()` does not stream: Workers AI's SSE framing differs between models and tool calls are not
 * streamed at all, so it runs the request once and emits the whole answer as one token, then the
 * tool calls, then `done`.
 * @example
 * const llm = makeWorkersAiLlm({ ai: env.AI });
 * const reply = await llm.complete({ model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast", messages });
 */
export function makeWorkersAiLlm(options: WorkersAiLlmOptions): LlmPort {
  if (!options.ai || typeof options.ai.run !== "function") {
    throw new LlmError({ provider: "workers-ai", message: "makeWorkersAiLlm needs the AI binding", retryable: false });
  }
  const { ai } = options;

  async function complete(request: LlmRequest): Promise<LlmResponse> {
    const names = makeToolNameCodec(request.tools);
    let output: unknown;
    try {
      const running = ai.run(
        request.model,
        toInput(request, names),
        request.signal ? { signal: request.signal } : undefined,
      );
      // The binding call has been made (LlmRequest.onSent).
      request.onSent?.();
      output = await running;
    } catch (error) {
      throw toLlmError(error);
    }
    return fromOutput(output, request, names);
  }

  return {
    provider: "workers-ai",
    complete,
    async *stream(request): AsyncGenerator<LlmStreamEvent> {
      const response = await complete(request);
      if (response.content) yield { type: "token", text: response.content };
      for (const call of response.toolCalls) yield { type: "tool_call", call };
      yield { type: "done", response };
    },
  };
}

function toMessage(message: Message, names: ToolNameCodec, request: LlmRequest): Record<string, unknown> {
  if (message.images?.length && message.role === "user") {
    if (!visionModel.test(request.model))
      return { role: "user", content: message.content + unseenImagesNote(message.images, request.model) };
    const { loaded, note } = imagesOf(message, request.imageData);
    return {
      role: "user",
      content: [
        { type: "text", text: message.content + note },
        ...loaded.map(({ ref, base64 }) => ({
          type: "image_url",
          image_url: { url: `data:${ref.type};base64,${base64}` },
        })),
      ],
    };
  }
  if (message.role === "tool")
    return { role: "tool", content: message.content, tool_call_id: message.toolCallId ?? "" };
  if (message.role === "assistant" && message.toolCalls?.length) {
    return {
      role: "assistant",
      content: message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: names.toProvider(call.name), arguments: JSON.stringify(call.arguments) },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

/** LLaVA-style input: the conversation as one prompt and the newest image's bytes. */
function imagePromptInput(request: LlmRequest): Record<string, unknown> {
  const newest = request.messages.findLast((m) => m.images?.length);
  const image = newest ? imagesOf(newest, request.imageData).loaded.at(-1) : undefined;
  return {
    prompt: request.messages.map((m) => `${m.role}: ${m.content}`).join("\n"),
    ...(image ? { image: Array.from(atob(image.base64), (c) => c.charCodeAt(0)) } : {}),
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
  };
}

function toInput(request: LlmRequest, names: ToolNameCodec): Record<string, unknown> {
  if (imagePromptModel.test(request.model)) return imagePromptInput(request);
  const tools = request.tools ?? [];
  return {
    messages: request.messages.map((message) => toMessage(message, names, request)),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: names.toProvider(tool.name),
            description: tool.description,
            parameters: tool.parameters,
          })),
        }
      : {}),
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
  };
}

type RawCall = {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
  function?: { name?: unknown; arguments?: unknown };
};

function toToolCall(raw: RawCall, index: number, names: ToolNameCodec): ToolCall | undefined {
  const name = raw.function?.name ?? raw.name;
  if (typeof name !== "string" || name === "") return undefined;
  const args = raw.function?.arguments ?? raw.arguments;
  return {
    id: typeof raw.id === "string" && raw.id ? raw.id : `call_${index}`,
    name: names.fromProvider(name),
    arguments:
      typeof args === "string"
        ? parseToolArguments(args)
        : typeof args === "object" && args !== null
          ? (args as Record<string, unknown>)
          : {},
  };
}

function fromOutput(output: unknown, request: LlmRequest, names: ToolNameCodec): LlmResponse {
  // biome-ignore lint/suspicious/noExplicitAny: Workers AI answers in one of several shapes; each read below is checked
  const body = (typeof output === "object" && output !== null ? output : { response: output }) as Record<string, any>;
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  const rawContent = choice ? choice.message?.content : body.response;
  // Some models answer with a JSON object in `response` (e.g. when they chose JSON mode).
  const content = typeof rawContent === "string" ? rawContent : rawContent == null ? "" : JSON.stringify(rawContent);
  const rawCalls: RawCall[] = (choice ? choice.message?.tool_calls : body.tool_calls) ?? [];
  const toolCalls = rawCalls
    .map((raw, index) => toToolCall(raw, index, names))
    .filter((call): call is ToolCall => call !== undefined);
  const usage = body.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
  const finish = choice?.finish_reason;
  return {
    content,
    toolCalls,
    finishReason: toolCalls.length > 0 ? "tool_calls" : finish === "length" ? "length" : "stop",
    usage: {
      inputTokens: usage?.prompt_tokens ?? estimateMessageTokens(request.messages),
      outputTokens: usage?.completion_tokens ?? estimateTokens(content),
    },
    model: typeof body.model === "string" && body.model ? body.model : request.model,
  };
}

/**
 * The binding throws plain Errors ("3040: Capacity temporarily exceeded"). A status field is used
 * when present; otherwise the documented capacity/rate/timeout wording is the only signal there is.
 */
function toLlmError(error: unknown): LlmError {
  const provider = "workers-ai";
  const message = error instanceof Error ? error.message : String(error);
  const status =
    typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : undefined;
  const transient =
    /capacity|rate limit|too many|timeout|timed out|overloaded|unavailable|internal error|network/i.test(message);
  return new LlmError({
    provider,
    message: `workers-ai failed: ${message}`,
    ...(status === undefined ? {} : { status }),
    retryable: status !== undefined ? isRetryableStatus(status) : transient,
    cause: error,
  });
}
