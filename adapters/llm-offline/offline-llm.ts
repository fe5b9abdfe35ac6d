import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent, Message, ModelTool, ToolCall } from "../../core/ports";
import { LlmError } from "../../core/models/llm-error";
import { estimateMessageTokens, estimateTokens } from "../../core/models/tokens";
import { findDirective } from "./directives";
import { passagesOf, rank } from "./retrieval";
import type { ImageRef } from "../../core/ports";

const about =
  "I am Pantheon's offline stand-in, not a language model: I can quote what my context says, " +
  "run a tool with /tool <name> <json-args>, ask a connected agent with /ask <agent> <text>, or list my tools with /tools.";

const maxResultChars = 600;

/**
 * The offline default LlmPort: no weights, no network, and it does not pretend to be a model.
 * Same input, same output. It answers by:
 * - after tool results (last message role "tool"): "The tool <name> returned: <result>";
 * - a directive in the last user message: `/tool <name> <json-args>` and `/ask <agent> <text>`
 *   become one tool call (only to a tool it was given), `/tools` lists its tools; a longer message
 *   may carry a `/tool` directive on a line of its own (a task's spec quoting its plan);
 * - otherwise the 1–3 sentences of its context (system messages, recent user and tool messages) that
 *   best match the question (BM25), each saying where it came from, or a plain
 *   "I have nothing in my context about …".
 * Usage is estimated (chars / 4). Streaming sends the same answer in word chunks.
 * @example
 * const llm = makeOfflineLlm();
 * const reply = await llm.complete({ model: "offline", messages: [
 *   { role: "system", content: "The office opens at 9am." }, { role: "user", content: "When does the office open?" }] });
 * reply.content // "From the system prompt: The office opens at 9am."
 */
export function makeOfflineLlm(): LlmPort {
  return {
    provider: "offline",
    async complete(request) {
      // No network: the request is "sent" as it starts.
      request.onSent?.();
      return answer(request);
    },
    async *stream(request): AsyncGenerator<LlmStreamEvent> {
      const response = answer(request);
      for (const text of wordChunks(response.content)) yield { type: "token", text };
      for (const call of response.toolCalls) yield { type: "tool_call", call };
      yield { type: "done", response };
    },
  };
}

function answer(request: LlmRequest): LlmResponse {
  if (request.signal?.aborted)
    throw new LlmError({ provider: "offline", message: "offline request was aborted", retryable: false });
  const { content, toolCalls } = decide(request.messages, request.tools ?? []);
  let text = content;
  let finishReason: LlmResponse["finishReason"] = toolCalls.length > 0 ? "tool_calls" : "stop";
  if (request.maxTokens !== undefined && estimateTokens(text) > request.maxTokens) {
    text = text.slice(0, request.maxTokens * 4);
    finishReason = "length";
  }
  const toolText = JSON.stringify(request.tools ?? []);
  return {
    content: text,
    toolCalls,
    finishReason,
    usage: {
      inputTokens: estimateMessageTokens(request.messages) + (request.tools?.length ? estimateTokens(toolText) : 0),
      outputTokens: estimateMessageTokens([{ role: "assistant", content: text, toolCalls }]),
    },
    model: "offline",
  };
}

function decide(messages: Message[], tools: ModelTool[]): { content: string; toolCalls: ToolCall[] } {
  const toolNameOf = (id: string | undefined) => {
    for (const message of messages) for (const call of message.toolCalls ?? []) if (call.id === id) return call.name;
    return "(unknown)";
  };
  const last = messages.at(-1);
  if (last?.role === "tool") return { content: summariseToolResults(messages, toolNameOf), toolCalls: [] };

  const questionIndex = messages.findLastIndex((message) => message.role === "user");
  const question = messages[questionIndex];
  if (!question) return { content: `There is no question from a user in my context yet. ${about}`, toolCalls: [] };

  // Directives act only while they are the newest message; later system or assistant turns
  // (gate feedback, say) must not make the same tool call again.
  const directive = questionIndex === messages.length - 1 ? findDirective(question.content) : undefined;
  if (directive?.kind === "syntax_error") return { content: directive.message, toolCalls: [] };
  if (directive?.kind === "list_tools") return { content: listTools(tools), toolCalls: [] };
  if (directive?.kind === "tool") {
    if (!tools.some((tool) => tool.name === directive.name)) {
      return { content: `I was not given a tool named ${directive.name}. ${listTools(tools)}`, toolCalls: [] };
    }
    const id = `call_offline_${hash(`${messages.length}|${directive.name}|${JSON.stringify(directive.arguments)}`)}`;
    return { content: "", toolCalls: [{ id, name: directive.name, arguments: directive.arguments }] };
  }

  const asked = question.content.trim();
  // It says plainly what it cannot do with a picture, and what it was given.
  const unseen = question.images?.length ? cannotSee(question.images) : "";
  if (unseen && !asked) return { content: unseen, toolCalls: [] };
  const best = rank(asked, passagesOf(messages, questionIndex, toolNameOf));
  if (unseen)
    return {
      content: `${unseen}\n${best.length ? best.map((passage) => `From ${passage.source}: ${passage.text}`).join("\n") : `About your words: I have nothing in my context about "${clip(asked, 120)}".`}`,
      toolCalls: [],
    };
  if (best.length === 0)
    return { content: `I have nothing in my context about "${clip(asked, 120)}". ${about}`, toolCalls: [] };
  return { content: best.map((passage) => `From ${passage.source}: ${passage.text}`).join("\n"), toolCalls: [] };
}

/** "I cannot see images … I received 1 image/png 2x2 (68 bytes, id 3f…)." */
function cannotSee(images: readonly ImageRef[]): string {
  const one = (ref: ImageRef) =>
    `${ref.type}${ref.width && ref.height ? ` ${ref.width}x${ref.height}` : ""} (${ref.bytes} bytes, id ${ref.id.slice(0, 12)}…)`;
  const received =
    images.length === 1 ? `1 ${one(images[0]!)}` : `${images.length} images: ${images.map(one).join(", ")}`;
  return `I cannot see images: I am Pantheon's offline stand-in, not a vision model. I received ${received}.`;
}

function summariseToolResults(messages: Message[], toolNameOf: (id: string | undefined) => string): string {
  const results: Message[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]?.role === "tool"; index--)
    results.unshift(messages[index]!);
  return results
    .map((result) => {
      const text = result.content.trim();
      return `The tool ${toolNameOf(result.toolCallId)} returned: ${text === "" ? "(nothing)" : clip(text, maxResultChars)}`;
    })
    .join("\n");
}

function listTools(tools: ModelTool[]): string {
  if (tools.length === 0) return "I was given no tools.";
  const lines = tools.map((tool) => `- ${tool.name}${tool.description ? `: ${clip(tool.description, 160)}` : ""}`);
  return `I was given ${tools.length} tool${tools.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Word chunks whose concatenation is exactly the text (whitespace stays on the word before it). */
export function wordChunks(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((chunk) => chunk !== "");
}

/** FNV-1a, so tool call ids are stable for the same conversation and call. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
