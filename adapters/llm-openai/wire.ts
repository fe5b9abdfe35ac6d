import type OpenAI from "openai";
import type { FinishReason, LlmRequest, Message, ToolCall } from "../../core/ports";
import { type ToolNameCodec, parseToolArguments } from "../../core/models/tool-names";
import { imagesOf } from "../../core/images/parts";

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** OpenAI's `name` field only takes `[a-zA-Z0-9_-]`; agent names are close enough to map. */
const speakerName = (name: string) => name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);

/** A user message's text and images as OpenAI content parts (`image_url` with a data URL each). */
function userContent(
  message: Message,
  imageData: LlmRequest["imageData"],
): OpenAI.Chat.Completions.ChatCompletionUserMessageParam["content"] {
  if (!message.images?.length) return message.content;
  const { loaded, note } = imagesOf(message, imageData);
  return [
    { type: "text", text: message.content + note },
    ...loaded.map(({ ref, base64 }) => ({
      type: "image_url" as const,
      image_url: { url: `data:${ref.type};base64,${base64}` },
    })),
  ];
}

function toOpenAiMessage(message: Message, names: ToolNameCodec, imageData: LlmRequest["imageData"]): ChatMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return {
        role: "user",
        content: userContent(message, imageData),
        ...(message.name ? { name: speakerName(message.name) } : {}),
      };
    case "tool":
      return { role: "tool", content: message.content, tool_call_id: message.toolCallId ?? "" };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      return {
        role: "assistant",
        content: message.content === "" && calls.length > 0 ? null : message.content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: names.toProvider(call.name), arguments: JSON.stringify(call.arguments) },
              })),
            }
          : {}),
      };
    }
  }
}

/**
 * The chat.completions body for one request. `max_tokens` is what OpenAI-compatible servers
 * (vLLM, llama.cpp, Ollama) understand; OpenAI itself wants `max_completion_tokens`.
 */
export function toOpenAiParams(request: LlmRequest, names: ToolNameCodec, compatible: boolean): ChatParams {
  const tools = request.tools ?? [];
  return {
    model: request.model,
    messages: request.messages.map((message) => toOpenAiMessage(message, names, request.imageData)),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: "function" as const,
            function: { name: names.toProvider(tool.name), description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(request.maxTokens === undefined
      ? {}
      : compatible
        ? { max_tokens: request.maxTokens }
        : { max_completion_tokens: request.maxTokens }),
  };
}

export function fromOpenAiFinish(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      // Some compatible servers say "stop" (or nothing) even when they returned tool calls.
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

export function fromOpenAiToolCalls(
  calls: OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] | undefined,
  names: ToolNameCodec,
): ToolCall[] {
  const out: ToolCall[] = [];
  for (const call of calls ?? []) {
    if (call.type !== "function") continue;
    out.push({
      id: call.id,
      name: names.fromProvider(call.function.name),
      arguments: parseToolArguments(call.function.arguments),
    });
  }
  return out;
}

/** Tool calls arrive in pieces keyed by `index`: the first piece has id and name, later ones append arguments. */
export function makeToolCallAssembler(names: ToolNameCodec) {
  const parts = new Map<number, { id: string; name: string; args: string }>();
  return {
    add(delta: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall) {
      const part = parts.get(delta.index) ?? { id: "", name: "", args: "" };
      if (delta.id) part.id = delta.id;
      if (delta.function?.name) part.name += delta.function.name;
      if (delta.function?.arguments) part.args += delta.function.arguments;
      parts.set(delta.index, part);
    },
    finish(): ToolCall[] {
      return [...parts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, part]) => ({
          id: part.id || `call_${index}`,
          name: names.fromProvider(part.name),
          arguments: parseToolArguments(part.args),
        }));
    },
  };
}
