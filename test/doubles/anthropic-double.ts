/**
 * A fetch-compatible stand-in for Anthropic's Messages API (workerd tests cannot listen on a port).
 * It parses what the real SDK sends, records it, and answers scripted replies in Anthropic's wire
 * format: a JSON message, or the SSE sequence message_start → content_block_start/delta/stop →
 * message_delta → message_stop.
 */
import { type ApiDouble, type RecordedRequest, type ScriptedReply, pieces, recordRequest, sse } from "./openai-double";

export type { ApiDouble, RecordedRequest, ScriptedReply };

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export function makeAnthropicDouble(script: ScriptedReply[]): ApiDouble {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  let served = 0;

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const recorded = await recordRequest(input, init);
    requests.push(recorded);
    if (!new URL(recorded.url).pathname.endsWith("/v1/messages")) {
      return Response.json(
        { type: "error", error: { type: "not_found_error", message: `no route ${recorded.url}` } },
        { status: 404 },
      );
    }
    if (!recorded.headers["x-api-key"] && !recorded.headers.authorization) {
      return Response.json(
        { type: "error", error: { type: "authentication_error", message: "x-api-key header is required" } },
        { status: 401 },
      );
    }
    const reply = queue.shift();
    if (!reply)
      return Response.json(
        { type: "error", error: { type: "api_error", message: "the double has no scripted reply left" } },
        { status: 500 },
      );
    if ("error" in reply) {
      const type = reply.error.type ?? errorTypes[reply.error.status] ?? "api_error";
      return Response.json(
        { type: "error", error: { type, message: reply.error.message } },
        { status: reply.error.status, headers: { "request-id": `req_${requests.length}` } },
      );
    }
    served++;
    const id = `msg_${served}`;
    const model = reply.model ?? String(recorded.body.model);
    const text = reply.text ?? "";
    const calls = (reply.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `toolu_${served}_${index}`,
      name: call.name,
      input: typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments,
    }));
    const stopReason = calls.length > 0 ? "tool_use" : "end_turn";
    const usage = {
      input_tokens: 13 * served,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };

    if (!recorded.body.stream) {
      return Response.json({
        id,
        type: "message",
        role: "assistant",
        model,
        content: [...(text ? [{ type: "text", text }] : []), ...calls.map((call) => ({ type: "tool_use", ...call }))],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      });
    }

    const event = (name: string, data: Record<string, unknown>) =>
      `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
    const lines = [
      event("message_start", {
        message: {
          id,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
      'event: ping\ndata: {"type": "ping"}\n\n',
    ];
    let index = 0;
    if (text) {
      lines.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of pieces(text))
        lines.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
      lines.push(event("content_block_stop", { index }));
      index++;
    }
    for (const call of calls) {
      lines.push(
        event("content_block_start", {
          index,
          content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
        }),
      );
      const json = JSON.stringify(call.input);
      const half = Math.ceil(json.length / 2);
      for (const part of ["", json.slice(0, half), json.slice(half)]) {
        lines.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } }));
      }
      lines.push(event("content_block_stop", { index }));
      index++;
    }
    lines.push(
      event("message_delta", {
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      }),
    );
    lines.push(event("message_stop", {}));
    return sse(lines);
  }

  return { fetch, requests, remaining: () => queue.length };
}
