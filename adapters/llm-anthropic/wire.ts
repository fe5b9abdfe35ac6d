import type Anthropic from "@anthropic-ai/sdk";
import type { FinishReason, LlmRequest, Message } from "../../core/ports";
import type { ToolNameCodec } from "../../core/models/tool-names";
import { imagesOf } from "../../core/images/parts";

type Params = Anthropic.Messages.MessageCreateParamsNonStreaming;
type Block = Anthropic.Messages.ContentBlockParam;
type Turn = { role: "user" | "assistant"; content: Block[] };

/** Anthropic requires max_tokens; this is what a request without one gets. */
export const defaultMaxTokens = 4096;

function blocksOf(message: Message, names: ToolNameCodec, imageData: LlmRequest["imageData"]): Block[] {
  const blocks: Block[] = [];
  if (message.role === "tool") {
    return [{ type: "tool_result", tool_use_id: message.toolCallId ?? "", content: message.content }];
  }
  const { loaded, note } = message.images?.length ? imagesOf(message, imageData) : { loaded: [], note: "" };
  // Images before the text, as Anthropic advises; each a base64 source with its sniffed type.
  for (const { ref, base64 } of loaded)
    blocks.push({ type: "image", source: { type: "base64", media_type: ref.type as "image/png", data: base64 } });
  // The API rejects empty text blocks.
  if (message.content + note !== "") blocks.push({ type: "text", text: message.content + note });
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? []) {
      blocks.push({ type: "tool_use", id: call.id, name: names.toProvider(call.name), input: call.arguments });
    }
  }
  return blocks;
}

/**
 * Anthropic has no system role in `messages` and wants a tool result as a `tool_result` block in a
 * user turn; several results for one assistant turn must share one user turn. Every system
 * message becomes part of `system` (in order), and consecutive turns of one role are merged.
 */
export function toAnthropicParams(request: LlmRequest, names: ToolNameCodec): Params {
  const system: string[] = [];
  const turns: Turn[] = [];
  for (const message of request.messages) {
    if (message.role === "system") {
      if (message.content !== "") system.push(message.content);
      continue;
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = blocksOf(message, names, request.imageData);
    if (blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  const tools = request.tools ?? [];
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? defaultMaxTokens,
    messages: turns.map((turn) => ({
      role: turn.role,
      // A lone text block is sent as a plain string, the form most examples and proxies expect.
      content: turn.content.length === 1 && turn.content[0]?.type === "text" ? turn.content[0].text : turn.content,
    })),
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: names.toProvider(tool.name),
            description: tool.description,
            input_schema: { type: "object" as const, ...tool.parameters },
          })),
        }
      : {}),
    // Settings allow OpenAI's 0–2 range; Anthropic rejects anything above 1.
    ...(request.temperature === undefined ? {} : { temperature: Math.min(1, request.temperature) }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
  };
}

export function fromAnthropicStop(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return hasToolCalls ? "tool_calls" : "stop";
  }
}

/** Cache reads and writes are input the model saw; they count against budgets like any input. */
export function inputTokensOf(usage: {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}): number {
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}
