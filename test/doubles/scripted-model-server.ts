// A local HTTP double of the OpenAI chat-completions API for workerd tests, started by
// vitest.config.ts on 127.0.0.1. Tests script it over HTTP, per model name, so each test uses
// its own model name and never sees another test's replies:
//   POST /__script/<model>   [{ content?, toolCalls?: [{ name, arguments }], status?, error?, delayMs? }, ...]
//   GET  /__calls/<model>    the request bodies the double received for that model
//   GET  /__auth/<model>     the Authorization header of each of those requests (which key answered)
// Memory-extraction requests (the agent's after-turn step, recognised by its system prompt) are
// answered from their own queue, POST /__script/<model>:extraction (default: no memories), and
// recorded under /__calls/<model>:extraction, so they never consume a conversation's replies.
// Summary folds (recognised the same way) likewise use <model>:summary (default: "(summary)").
//   A step with `hold: "<key>"` is not answered until POST /__release/<key> (any order of arrival),
//   so a test can tell what happened while a call was still open without timing anything.
//   POST /__tool/<key>[?ms=N&status=N&echoHeaders&hold=H]   an operator HTTP tool endpoint: records the call
//                            (body and headers) under <key>, waits N ms (and, with `hold`, until
//                            POST /__release/H), answers { echo: body } or status N
//   GET  /__tool-calls/<key> what that endpoint received
//   POST /__case/<model>/<tag>  { steps: CaseStep[] }: replies for the runs whose last user message
//                            holds `#<tag>`, by position: step i answers the i-th model call of the
//                            run (the assistant messages after that user message), so a call made
//                            again after an eviction gets the same reply; `failFirst` fails the first
//                            `times` calls at that position (a status, or a delay past the timeout).
// The agent under test talks to it with the real `openai` SDK (provider "openai").
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

export interface ScriptStep {
  content?: string;
  /** `arguments` as a string is sent as is (malformed JSON, as models sometimes send). */
  toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
  status?: number;
  error?: string;
  delayMs?: number;
  /** The answer waits until POST /__release/<hold>. */
  hold?: string;
  /** The model the answer names (a provider that answers with another model than the one asked). */
  answerAs?: string;
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

export interface CaseStep extends ScriptStep {
  failFirst?: { times: number; status?: number; error?: string; delayMs?: number };
}

const encodeName = (name: string) => name.replace(/\./g, "__");

export async function startScriptedModelServer(): Promise<{ url: string; server: Server }> {
  const scripts = new Map<string, ScriptStep[]>();
  const calls = new Map<string, unknown[]>();
  /** Held answers by key: the release function of each waiting call, or true once released. */
  const holds = new Map<string, { released: boolean; waiting: Array<() => void> }>();
  const holdOf = (key: string) => holds.get(key) ?? holds.set(key, { released: false, waiting: [] }).get(key)!;
  const cases = new Map<string, CaseStep[]>();
  const caseCalls = new Map<string, number>();
  let counter = 0;

  /** The case step for a request, when its last user message names a scripted case. */
  function caseStep(model: string, messages: { role: string; content?: unknown }[]): ScriptStep | undefined {
    let last = -1;
    messages.forEach((m, i) => m.role === "user" && (last = i));
    const text = last >= 0 && typeof messages[last]!.content === "string" ? (messages[last]!.content as string) : "";
    const tag = /#([\w-]+)/.exec(text)?.[1];
    const steps = tag ? cases.get(`${model}/${tag}`) : undefined;
    if (!steps) return undefined;
    const position = messages.slice(last + 1).filter((m) => m.role === "assistant").length;
    const step = steps[position] ?? { content: `(case ${tag} has no step ${position})` };
    const key = `${model}/${tag}/${position}`;
    const seen = (caseCalls.get(key) ?? 0) + 1;
    caseCalls.set(key, seen);
    if (step.failFirst && seen <= step.failFirst.times) {
      return {
        status: step.failFirst.status,
        error: step.failFirst.error,
        delayMs: step.failFirst.delayMs,
        content: "(too late)",
      };
    }
    return step;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://double");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "POST" && url.pathname.startsWith("/__release/")) {
      const hold = holdOf(decodeURIComponent(url.pathname.slice("/__release/".length)));
      hold.released = true;
      for (const release of hold.waiting.splice(0)) release();
      return send(200, { ok: true });
    }
    if (req.method === "POST" && url.pathname.startsWith("/__script/")) {
      const model = decodeURIComponent(url.pathname.slice("/__script/".length));
      const steps = JSON.parse(await readBody(req)) as ScriptStep[];
      scripts.set(model, [...(scripts.get(model) ?? []), ...steps]);
      return send(200, { ok: true, queued: scripts.get(model)!.length });
    }
    if (req.method === "POST" && url.pathname.startsWith("/__case/")) {
      const [model, tag] = url.pathname.slice("/__case/".length).split("/").map(decodeURIComponent);
      cases.set(`${model}/${tag}`, (JSON.parse(await readBody(req)) as { steps: CaseStep[] }).steps);
      return send(200, { ok: true });
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
      const held = url.searchParams.get("hold");
      if (held && !holdOf(held).released) await new Promise<void>((r) => holdOf(held).waiting.push(r));
      const status = Number(url.searchParams.get("status") ?? 200);
      const echo = {
        echo: body ? JSON.parse(body) : null,
        call: toolCalls.length,
        ...(url.searchParams.has("echoHeaders") ? { headers: req.headers } : {}),
      };
      return send(status, status >= 400 ? { error: "scripted tool failure" } : echo);
    }
    if (req.method === "GET" && url.pathname.startsWith("/__auth/")) {
      return send(200, calls.get(`auth:${decodeURIComponent(url.pathname.slice("/__auth/".length))}`) ?? []);
    }
    if (req.method === "GET" && url.pathname.startsWith("/__tool-calls/")) {
      return send(200, calls.get(`tool:${decodeURIComponent(url.pathname.slice("/__tool-calls/".length))}`) ?? []);
    }
    if (req.method === "POST" && url.pathname.endsWith("/chat/completions")) {
      const body = JSON.parse(await readBody(req)) as {
        model: string;
        stream?: boolean;
        messages?: { role: string; content?: unknown }[];
      };
      const first = body.messages?.[0];
      const extraction =
        first?.role === "system" && typeof first.content === "string" && first.content.includes("long-term memory");
      const summary =
        first?.role === "system" &&
        typeof first.content === "string" &&
        first.content.includes("running summary of a conversation");
      const side = extraction || summary;
      const key = extraction ? `${body.model}:extraction` : summary ? `${body.model}:summary` : body.model;
      calls.set(key, [...(calls.get(key) ?? []), body]);
      // Which key each call carried (project keys vs the deployment's): GET /__auth/<model>.
      calls.set(`auth:${key}`, [...(calls.get(`auth:${key}`) ?? []), req.headers.authorization ?? null]);
      const fallback = extraction ? '{"memories":[]}' : summary ? "(summary)" : "(the double has no scripted reply)";
      const step = (!side && caseStep(body.model, body.messages ?? [])) ||
        scripts.get(key)?.shift() || { content: fallback };
      if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
      if (step.hold) {
        const hold = holdOf(step.hold);
        if (!hold.released) await new Promise<void>((r) => hold.waiting.push(r));
      }
      if (step.status && step.status >= 400) {
        return send(step.status, {
          error: { message: step.error ?? `scripted ${step.status}`, type: "scripted_error", code: null },
        });
      }
      const id = `chatcmpl-${++counter}`;
      const toolCalls = (step.toolCalls ?? []).map((call, index) => ({
        index,
        id: call.id ?? `call_${counter}_${index}`,
        type: "function" as const,
        function: {
          name: encodeName(call.name),
          arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
        },
      }));
      const finish = toolCalls.length ? "tool_calls" : "stop";
      const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
      if (!body.stream) {
        return send(200, {
          id,
          object: "chat.completion",
          created: 0,
          model: step.answerAs ?? body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: step.content ?? null,
                ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finish,
            },
          ],
          usage,
        });
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: unknown, finish_reason: string | null = null, extra: Record<string, unknown> = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: step.answerAs ?? body.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
        );
      chunk({ role: "assistant", content: "" });
      for (const word of (step.content ?? "").match(/\S+\s*/g) ?? []) chunk({ content: word });
      for (const call of toolCalls) chunk({ tool_calls: [call] });
      chunk({}, finish);
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: step.answerAs ?? body.model, choices: [], usage })}\n\n`,
      );
      res.end("data: [DONE]\n\n");
      return;
    }
    send(404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  }

  const { url, server } = await listenOnLoopback(handle);
  return { url: url, server };
}
