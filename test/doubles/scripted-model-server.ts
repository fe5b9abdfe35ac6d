// A local HTTP double of the OpenAI chat-completions API for workerd tests, started by
// vitest.config.ts on 127.0.0.1. Tests script it over HTTP, per model name, so each test uses
// its own model name and never sees another test's replies:
//   POST /__script/<model>   [{ content?, toolCalls?: [{ name, arguments }], status?, error?, delayMs? }, ...]
//   GET  /__calls/<model>    the request bodies the double received for that model
// Memory-extraction requests (the agent's after-turn step, recognised by its system prompt) are
// answered from their own queue, POST /__script/<model>:extraction (default: no memories), and
// recorded under /__calls/<model>:extraction, so they never consume a conversation's replies.
//   POST /__tool/<key>[?ms=N&status=N&echoHeaders]   an operator HTTP tool endpoint: records the call (body and
//                            headers) under <key>, waits N ms, answers { echo: body } or status N
//   GET  /__tool-calls/<key> what that endpoint received
// The agent under test talks to it with the real `openai` SDK (provider "openai").
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

export interface ScriptStep {
  content?: string;
  toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> }[];
  status?: number;
  error?: string;
  delayMs?: number;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

const encodeName = (name: string) => name.replace(/\./g, "__");

export async function startScriptedModelServer(): Promise<{ url: string; server: Server }> {
  const scripts = new Map<string, ScriptStep[]>();
  const calls = new Map<string, unknown[]>();
  let counter = 0;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://double");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "POST" && url.pathname.startsWith("/__script/")) {
      const model = decodeURIComponent(url.pathname.slice("/__script/".length));
      const steps = JSON.parse(await readBody(req)) as ScriptStep[];
      scripts.set(model, [...(scripts.get(model) ?? []), ...steps]);
      return send(200, { ok: true, queued: scripts.get(model)!.length });
    }
    if (req.method === "GET" && url.pathname.startsWith("/__calls/")) {
      return send(200, calls.get(decodeURIComponent(url.pathname.slice("/__calls/".length))) ?? []);
    }
    if (req.method === "POST" && url.pathname.startsWith("/__tool/")) {
      const key = decodeURIComponent(url.pathname.slice("/__tool/".length));
      const body = await readBody(req);
      const toolCalls = calls.get(`tool:${key}`) ?? [];
      toolCalls.push({ body: body ? JSON.parse(body) : null, headers: req.headers });
      calls.set(`tool:${key}`, toolCalls);
      const ms = Number(url.searchParams.get("ms") ?? 0);
      if (ms) await new Promise((r) => setTimeout(r, ms));
      const status = Number(url.searchParams.get("status") ?? 200);
      const echo = { echo: body ? JSON.parse(body) : null, call: toolCalls.length, ...(url.searchParams.has("echoHeaders") ? { headers: req.headers } : {}) };
      return send(status, status >= 400 ? { error: "scripted tool failure" } : echo);
    }
    if (req.method === "GET" && url.pathname.startsWith("/__tool-calls/")) {
      return send(200, calls.get(`tool:${decodeURIComponent(url.pathname.slice("/__tool-calls/".length))}`) ?? []);
    }
    if (req.method === "POST" && url.pathname.endsWith("/chat/completions")) {
      const body = JSON.parse(await readBody(req)) as { model: string; stream?: boolean; messages?: { role: string; content?: unknown }[] };
      const first = body.messages?.[0];
      const extraction = first?.role === "system" && typeof first.content === "string" && first.content.includes("long-term memory");
      const key = extraction ? `${body.model}:extraction` : body.model;
      calls.set(key, [...(calls.get(key) ?? []), body]);
      const step = scripts.get(key)?.shift() ?? { content: extraction ? '{"memories":[]}' : "(the double has no scripted reply)" };
      if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
      if (step.status && step.status >= 400) {
        return send(step.status, { error: { message: step.error ?? `scripted ${step.status}`, type: "scripted_error", code: null } });
      }
      const id = `chatcmpl-${++counter}`;
      const toolCalls = (step.toolCalls ?? []).map((call, index) => ({
        index,
        id: call.id ?? `call_${counter}_${index}`,
        type: "function" as const,
        function: { name: encodeName(call.name), arguments: JSON.stringify(call.arguments) },
      }));
      const finish = toolCalls.length ? "tool_calls" : "stop";
      const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
      if (!body.stream) {
        return send(200, {
          id,
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: step.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }],
          usage,
        });
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: unknown, finish_reason: string | null = null, extra: Record<string, unknown> = {}) =>
        res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
      chunk({ role: "assistant", content: "" });
      for (const word of (step.content ?? "").match(/\S+\s*/g) ?? []) chunk({ content: word });
      for (const call of toolCalls) chunk({ tool_calls: [call] });
      chunk({}, finish);
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage })}\n\n`);
      res.end("data: [DONE]\n\n");
      return;
    }
    send(404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  }

  const { url, server } = await listenOnLoopback(handle);
  return { url: url, server };
}
