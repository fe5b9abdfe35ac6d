import { requestedModel } from "../../../durable-objects/agent/runs/overrides";
import { Hono, type ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { lazySchema } from "../../../core/lazy-schema";
import { agentNamePattern, type AgentProfile } from "../../../core/agents";
import { isPantheonError, unknownAgentMessage } from "../../../core/errors";
import { maxInlineImageBodyBytes, openAiImageSources, storeImageSources } from "../../images";
import { runPrincipal } from "../../auth";
import { door } from "../door";
import type { AppContext, AppEnv } from "../../env";
import { agentStub, call, registryStub, type Remote } from "../../../durable-objects/stubs";
import { isJsonMediaType, jsonShapeProblem } from "../../validation";
import { readRunEvents } from "../../../core/protocols/run-events";
import { sessionFor } from "../sessions";
import { structuredInput } from "../../api/messages";
import type { AgentDO, ChatInput } from "../../../durable-objects/agent/agent-do";

/**
 * An error in OpenAI's shape (`{ error: { message, type, param, code } }`), so OpenAI SDKs
 * raise their usual `BadRequestError`, `NotFoundError`, ... with our message.
 */
export class OpenAiCompatError extends Error {
  override readonly name = "OpenAiCompatError";
  constructor(
    readonly status: 400 | 401 | 404 | 413 | 415 | 500 | 502,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type: "invalid_request_error" | "server_error" = status >= 500 ? "server_error" : "invalid_request_error",
  ) {
    super(message);
  }
}

const textPart = lazySchema(() => z.object({ type: z.literal("text"), text: z.string() }));
const chatMessage = lazySchema(() =>
  z.looseObject({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], {
      error: "one of system, developer, user, assistant, tool",
    }),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
  }),
);

/** Fields we act on; the rest of OpenAI's request (temperature, tools, ...) is accepted and ignored: the agent's profile decides. */
const completionBody = lazySchema(() =>
  z.looseObject({
    model: z.string({ error: "name the agent to talk to" }).min(1, "name the agent to talk to"),
    messages: z.array(chatMessage, { error: "a list of messages" }).min(1, "send at least one message"),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    user: z.string().max(200, "at most 200 characters").nullish(),
    n: z.number().int().min(1).max(1, "an agent gives one reply per message: n must be 1").nullish(),
    /**
     * Pantheon's extension: structured input for the agent's behaviors (`(get input "repo")`), as in
     * `POST …/messages`. OpenAI SDKs send it as an extra body field (Python `extra_body={"input": {…}}`;
     * in JavaScript a field of the request object).
     */
    input: structuredInput.nullish(),
    /** Pantheon's extension: another of the agent's allowed models for this request (`provider/model`). */
    model_override: z.string().min(3).max(161).nullish(),
  }),
);
type CompletionBody = z.infer<typeof completionBody>;

/** The request as OpenAI sends it: JSON by Content-Type (else 415), parseable (else 400), at most 64 levels deep and without `__proto__` keys (else 400). */
async function readBody(c: AppContext): Promise<CompletionBody> {
  if (!isJsonMediaType(c.req.header("content-type"))) {
    throw new OpenAiCompatError(
      415,
      "send the chat completion request as JSON with 'Content-Type: application/json'",
      null,
      "unsupported_media_type",
    );
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new OpenAiCompatError(
      400,
      "the body is not valid JSON: send the chat completion request as JSON",
      null,
      "bad_request",
    );
  }
  const shape = jsonShapeProblem(raw);
  if (shape?.kind === "too_deep") throw new OpenAiCompatError(400, shape.message, null, "bad_request");
  if (shape) throw new OpenAiCompatError(400, shape.message, shape.path.join("."), "invalid_value");
  const parsed = completionBody.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param =
    issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("") || null;
  throw new OpenAiCompatError(400, param ? `${param}: ${issue.message}` : issue.message, param, "invalid_value");
}

/**
 * The agent answers the latest user message; earlier turns come from its own memory, not the
 * request. With `input` and no user message, the request is the input itself (as on `/api`).
 */
function lastUserContent(body: CompletionBody): string {
  const index = body.messages.findLastIndex((m) => m.role === "user");
  const param = `messages[${index}].content`;
  if (index < 0 && body.input) return JSON.stringify(body.input);
  if (index < 0)
    throw new OpenAiCompatError(
      400,
      "messages: include a message with role 'user' (or send an input object)",
      "messages",
      "invalid_value",
    );
  const content = body.messages[index]!.content;
  const text =
    typeof content === "string"
      ? content
      : (content ?? [])
          .filter((part) => part.type !== "image_url")
          .map((part) => {
            const text = textPart.safeParse(part);
            if (!text.success)
              throw new OpenAiCompatError(
                400,
                `${param}: only text and image_url parts are supported (got '${part.type}')`,
                param,
                "invalid_value",
              );
            return text.data.text;
          })
          .join("\n");
  if (!text.trim() && !openAiImageSources(content, param).length)
    throw new OpenAiCompatError(400, `${param}: the last user message is empty`, param, "invalid_value");
  if (text.length > 32_000)
    throw new OpenAiCompatError(400, `${param}: at most 32,000 characters`, param, "invalid_value");
  return text;
}

/** OpenAI's own code for it; the words are every door's (core/errors.ts), then what a model is here. */
const modelMissing = (model: string, project: string) =>
  new OpenAiCompatError(
    404,
    `${unknownAgentMessage(model.slice(0, 64), project)}: the model is the name of one of your agents (GET /v1/models lists them)`,
    "model",
    "model_not_found",
  );

async function agentOf(c: AppContext, model: string): Promise<{ profile: AgentProfile; agent: Remote<AgentDO> }> {
  if (!agentNamePattern.test(model)) throw modelMissing(model, c.get("project"));
  const found = await registryStub(c.env, c.get("project")).getAgent(model);
  if (!found.ok) {
    if (found.code === "not_found") throw modelMissing(model, c.get("project"));
    await call(found);
  }
  const profile = (found as { value: AgentProfile }).value;
  return { profile, agent: await agentStub(c.env, c.get("project"), profile.name) };
}

/** OpenAI's `user` (a stable id of the end user) keeps that person's conversation apart (../sessions.ts). */
const sessionOf = (agent: Remote<AgentDO>, user: string | null | undefined) =>
  user ? sessionFor(agent, "openai", user) : Promise.resolve(undefined);

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The run's token usage, from the `run_finished` step of its trace. */
async function usageOf(agent: Remote<AgentDO>, runId: string): Promise<Usage> {
  const found = await agent.getRun(runId);
  if (!found.ok) return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const finished = found.value.trace.find((step) => step.name === "run_finished");
  const usage = (finished?.data as { usage?: { inputTokens?: number; outputTokens?: number } } | undefined)?.usage;
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  const total = prompt + completion || found.value.run.tokens;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}

const waitingText = (agent: string, runId: string) =>
  `Waiting for approval: a tool call in run ${runId} needs a person to approve it (pantheon runs approve ${agent} ${runId}).`;

const runFailed = (runId: string, status: string, reason?: string) =>
  new OpenAiCompatError(502, `run ${runId} ended ${status}${reason ? `: ${reason}` : ""}`, null, `run_${status}`);

const completionId = (runId: string) => `chatcmpl-${runId}`;
const seconds = () => Math.floor(Date.now() / 1000);

/** The images of the last user message (`image_url` parts), stored in the agent's store (../images). */
async function imagesOf(c: AppContext, body: CompletionBody, profile: AgentProfile) {
  const index = body.messages.findLastIndex((m) => m.role === "user");
  const sources = index < 0 ? [] : openAiImageSources(body.messages[index]!.content, `messages[${index}].content`);
  const images = sources.length
    ? await storeImageSources(
        {
          env: c.env,
          owner: { project: c.get("project"), agent: profile.name },
          allowHosts: async () => profile.runtime.allowHosts,
        },
        sources,
        `messages[${index}].content`,
      )
    : [];
  return images.length ? { images } : {};
}

/** The agent's turn a completion asks for, the same whether it is answered whole or streamed. */
async function chatInputOf(
  c: AppContext,
  body: CompletionBody,
  content: string,
  profile: AgentProfile,
  session: string | undefined,
): Promise<ChatInput> {
  return {
    content,
    ...(await imagesOf(c, body, profile)),
    ...(body.input ? { input: body.input } : {}),
    ...(body.model_override ? { model: body.model_override } : {}),
    ...(session ? { session } : {}),
    principal: runPrincipal(c, "/v1"),
  };
}

async function complete(c: AppContext, body: CompletionBody, content: string) {
  const { profile, agent } = await agentOf(c, body.model);
  const session = await sessionOf(agent, body.user);
  const outcome = await call(agent.chat(await chatInputOf(c, body, content, profile, session)));
  if (outcome.status !== "completed" && outcome.status !== "waiting_approval")
    throw runFailed(outcome.runId, outcome.status, outcome.error);
  const text = outcome.reply?.content ?? waitingText(profile.name, outcome.runId);
  return c.json({
    id: completionId(outcome.runId),
    object: "chat.completion",
    created: seconds(),
    model: profile.name,
    choices: [
      { index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null },
    ],
    usage: await usageOf(agent, outcome.runId),
    pantheon: { runId: outcome.runId, sessionId: outcome.sessionId, status: outcome.status },
  });
}

/**
 * The agent's run events as `chat.completion.chunk` frames. Tokens stream as they come; text a
 * model wrote before calling a tool is not part of the stored reply, so when the reply does not
 * continue what was streamed since the last tool call, only its missing tail is added at the end.
 */
async function streamed(c: AppContext, body: CompletionBody, content: string) {
  const { profile, agent } = await agentOf(c, body.model);
  // Checked before the stream starts, so a model the agent does not allow is a 400, not an error frame.
  if (body.model_override) requestedModel(profile, body.model_override);
  const session = await sessionOf(agent, body.user);
  const source = await call(agent.chatStream(await chatInputOf(c, body, content, profile, session)));
  const encoder = new TextEncoder();
  const created = seconds();
  let id = "chatcmpl-pending";
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: profile.name,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });

  async function* frames(): AsyncGenerator<unknown> {
    let sinceTool = "";
    for await (const event of readRunEvents(source)) {
      if (event.type === "run") {
        id = completionId(event.runId);
        yield chunk({ role: "assistant", content: "" });
      } else if (event.type === "token") {
        sinceTool += event.text;
        yield chunk({ content: event.text });
      } else if (event.type === "tool_call") {
        sinceTool = "";
      } else if (event.type === "error") {
        yield { error: { message: event.message, type: "server_error", param: null, code: event.code } };
        return;
      } else if (event.type === "done") {
        const runId = event.runId;
        const status = event.status;
        const reply = event.reply?.content;
        if (status !== "completed" && status !== "waiting_approval") {
          const error = runFailed(runId, status);
          yield { error: { message: error.message, type: error.type, param: null, code: error.code } };
          return;
        }
        const full = reply ?? waitingText(profile.name, runId);
        if (full.startsWith(sinceTool) && full.length > sinceTool.length)
          yield chunk({ content: full.slice(sinceTool.length) });
        yield chunk({}, "stop");
        if (body.stream_options?.include_usage) yield { ...chunk({}), choices: [], usage: await usageOf(agent, runId) };
        return;
      }
    }
  }

  const iterator = frames();
  const out = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next().catch((error: unknown) => ({
        done: false as const,
        value: {
          error: {
            message: error instanceof Error ? error.message : String(error),
            type: "server_error",
            param: null,
            code: null,
          },
        },
      }));
      if (next.done) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
      if ((next.value as { error?: unknown }).error) {
        await iterator.return(undefined);
      }
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  return new Response(out, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-request-id": c.get("requestId"),
    },
  });
}

/** Every error of this router in OpenAI's shape, auth and body-size failures included. */
const onOpenAiError: ErrorHandler<AppEnv> = (error, c) => {
  const shaped = (
    status: number,
    message: string,
    param: string | null,
    code: string | null,
    type = status >= 500 ? "server_error" : "invalid_request_error",
  ) => {
    const response = c.json({ error: { message, type, param, code } }, status as 400);
    response.headers.set("x-request-id", c.get("requestId"));
    // A run that ended badly already happened: an SDK retry would start a second one.
    if (status === 502) response.headers.set("x-should-retry", "false");
    if (status === 401) response.headers.set("WWW-Authenticate", 'Bearer realm="pantheon"');
    return response;
  };
  if (error instanceof OpenAiCompatError)
    return shaped(error.status, error.message, error.param, error.code, error.type);
  if (isPantheonError(error)) {
    const issue = (error.details?.issues as { path: (string | number)[]; message: string }[] | undefined)?.[0];
    return shaped(
      error.status,
      issue ? `${issue.path.join(".")}: ${issue.message}` : error.message,
      issue ? issue.path.join(".") : null,
      error.code,
    );
  }
  if (error instanceof HTTPException) {
    if (error.status === 401)
      return shaped(
        401,
        "Incorrect or missing API key: send 'Authorization: Bearer <token>' with a Pantheon token",
        null,
        "invalid_api_key",
      );
    if (error.status === 413)
      return shaped(413, "the request body is larger than 8 MiB: /v1 takes at most 8 MiB", null, "payload_too_large");
    return shaped(error.status, error.message || "the request could not be handled", null, null);
  }
  console.error(
    JSON.stringify({
      level: "error",
      requestId: c.get("requestId"),
      name: (error as Error)?.name,
      message: (error as Error)?.message,
    }),
  );
  return shaped(500, "something went wrong on our side; the request id helps us find it", null, "internal");
};

/**
 * `/v1`: the OpenAI Chat Completions API in front of the project's agents, so any OpenAI client
 * (SDKs, chat UIs, LangChain, ...) can talk to an agent. Same bearer tokens and project header as `/api`.
 * `POST /v1/chat/completions` (model = agent name; `stream: true` for chunks), `GET /v1/models`.
 *
 * @example
 * const client = new OpenAI({ baseURL: "https://pantheon.example.workers.dev/v1", apiKey: token });
 * const answer = await client.chat.completions.create({ model: "keeper", messages: [{ role: "user", content: "Where is the key?" }] });
 * answer.choices[0].message.content; // the agent's reply, stored in its history like any other
 */
export const openaiRoutes = new Hono<AppEnv>()
  .use("*", door("chat", { path: "/v1", maxBodyBytes: maxInlineImageBodyBytes }))
  .post("/chat/completions", async (c) => {
    const body = await readBody(c);
    const content = lastUserContent(body);
    return body.stream ? streamed(c, body, content) : complete(c, body, content);
  })
  .get("/models", async (c) => {
    const project = c.get("project");
    const agents = await registryStub(c.env, project).listAgents();
    return c.json({ object: "list", data: agents.map((a) => asModel(a, project)) });
  })
  .get("/models/:model", async (c) =>
    c.json(asModel((await agentOf(c, c.req.param("model"))).profile, c.get("project"))),
  )
  .all("*", (c) => {
    throw new OpenAiCompatError(
      404,
      `no route for ${c.req.method} ${new URL(c.req.url).pathname}: this API offers POST /v1/chat/completions and GET /v1/models`,
      null,
      "unknown_url",
    );
  })
  .onError(onOpenAiError);

function asModel(profile: AgentProfile, project: string) {
  return {
    id: profile.name,
    object: "model",
    created: Math.floor(profile.createdAt / 1000),
    owned_by: project,
    description: profile.description,
  };
}
