/**
 * A fetch-compatible stand-in for the OpenAI chat.completions endpoint (workerd tests cannot listen on
 * a port). It parses what the real SDK sends, records it, and answers scripted replies in OpenAI's
 * wire format: a JSON completion, or SSE `data: {chunk}` lines ending with `data: [DONE]`.
 */

export type ScriptedReply =
  | {
      text?: string;
      toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
      model?: string;
    }
  | { error: { status: number; message: string; type?: string } };

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}

export interface ApiDouble {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  requests: RecordedRequest[];
  /** Scripted replies not yet used. */
  remaining(): number;
}

export async function recordRequest(input: string | URL | Request, init?: RequestInit): Promise<RecordedRequest> {
  const request = new Request(input, init);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const text = await request.text();
  return { url: request.url, method: request.method, headers, body: text ? JSON.parse(text) : {} };
}

export function sse(lines: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // One network chunk per event, as a server flushing per token would send them.
      for (const line of lines) controller.enqueue(encoder.encode(line));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

/** Splits text into word pieces whose concatenation is the text. */
export function pieces(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== "");
}

const argText = (args: Record<string, unknown> | string) => (typeof args === "string" ? args : JSON.stringify(args));

export function makeOpenAiDouble(script: ScriptedReply[]): ApiDouble {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  let served = 0;

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const recorded = await recordRequest(input, init);
    requests.push(recorded);
    if (!recorded.url.endsWith("/chat/completions")) {
      return Response.json(
        { error: { message: `no route ${recorded.url}`, type: "invalid_request_error" } },
        { status: 404 },
      );
    }
    if (!/^Bearer \S+/.test(recorded.headers.authorization ?? "")) {
      return Response.json(
        { error: { message: "You didn't provide an API key.", type: "invalid_request_error" } },
        { status: 401 },
      );
    }
    const reply = queue.shift();
    if (!reply)
      return Response.json(
        { error: { message: "the double has no scripted reply left", type: "server_error" } },
        { status: 500 },
      );
    if ("error" in reply) {
      return Response.json(
        {
          error: {
            message: reply.error.message,
            type: reply.error.type ?? "invalid_request_error",
            param: null,
            code: null,
          },
        },
        { status: reply.error.status, headers: { "x-request-id": `req_${served}` } },
      );
    }
    served++;
    const id = `chatcmpl-${served}`;
    const model = reply.model ?? String(recorded.body.model);
    const text = reply.text ?? "";
    const calls = (reply.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${served}_${index}`,
      name: call.name,
      args: argText(call.arguments),
    }));
    const finish = calls.length > 0 ? "tool_calls" : "stop";
    const usage = { prompt_tokens: 11 * served, completion_tokens: 7, total_tokens: 11 * served + 7 };

    if (!recorded.body.stream) {
      return Response.json({
        id,
        object: "chat.completion",
        created: 1_700_000_000,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: calls.length > 0 && text === "" ? null : text,
              refusal: null,
              ...(calls.length > 0
                ? {
                    tool_calls: calls.map((call) => ({
                      id: call.id,
                      type: "function",
                      function: { name: call.name, arguments: call.args },
                    })),
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        usage,
      });
    }

    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices, ...extra })}\n\n`;
    const lines = [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
    for (const piece of pieces(text)) lines.push(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
    calls.forEach((call, index) => {
      lines.push(
        chunk([
          {
            index: 0,
            delta: {
              tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
            },
            finish_reason: null,
          },
        ]),
      );
      const half = Math.ceil(call.args.length / 2);
      for (const part of [call.args.slice(0, half), call.args.slice(half)]) {
        if (part)
          lines.push(
            chunk([
              { index: 0, delta: { tool_calls: [{ index, function: { arguments: part } }] }, finish_reason: null },
            ]),
          );
      }
    });
    lines.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
    if (recorded.body.stream_options?.include_usage) lines.push(chunk([], { usage }));
    lines.push("data: [DONE]\n\n");
    return sse(lines);
  }

  return { fetch, requests, remaining: () => queue.length };
}
