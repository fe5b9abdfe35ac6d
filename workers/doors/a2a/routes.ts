// The A2A (Agent2Agent) door of every agent: its agent card and JSON-RPC endpoint, built on the
// SDK's own server pieces (DefaultRequestHandler, JsonRpcTransportHandler and its v0.3 twin), with
// a TaskStore backed by the agent's runs. Express is not used: its handlers are thin, and the
// Worker answers with web Responses (SSE for streams) around the same transport handlers.
import { runPrincipal } from "../../auth";
import { A2A_VERSION_HEADER, AgentCard, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  A2AError,
  ContentTypeNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type AgentExecutor,
  type TaskStore,
} from "@a2a-js/sdk/server";
import type { SendMessageRequest } from "@a2a-js/sdk";
import { agentNameSchema } from "../../../core/agents";
import { grants } from "../../../core/auth";
import { isPantheonError, unknownAgent, type PantheonError } from "../../../core/errors";
import {
  a2aSessionPrefix,
  agentCardOf,
  requestTextOf,
  approvalAnswerOf,
  type RunTurnView,
} from "../../../core/protocols/a2a";
import { agentStub, call, registryStub, type Remote } from "../../../durable-objects/stubs";
import type { AgentDO } from "../../../durable-objects/agent/agent-do";
import type { AppContext } from "../../env";
import { isJsonMediaType, jsonShapeProblem, maxJsonDepth } from "../../validation";
import { makeRunExecutor } from "./executor";
import { makeRunTaskStore } from "./store";

const legacyVersion = "0.3";
/** JSON-RPC methods that send a message (A2A 1.0 and 0.3 names). */
const sendMethods = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

/** A Pantheon error from the agent, as the A2A error a client understands (its message is meant for callers). */
function asA2aError(error: PantheonError): A2AError {
  if (error.code === "not_found") return new TaskNotFoundError(error.message);
  if (error.code === "validation_failed" || error.code === "bad_request")
    return new RequestMalformedError(error.message);
  if (error.code === "conflict" || error.code === "forbidden") return new UnsupportedOperationError(error.message);
  return new A2AError(error.message);
}

async function viaAgent<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isPantheonError(error) ? asA2aError(error) : error;
  }
}

/** The run as one exchange, or null when the agent has none of that id. */
async function runTurn(agent: Remote<AgentDO>, runId: string): Promise<RunTurnView | null> {
  try {
    return (await call(agent.runTurn(runId))) as RunTurnView;
  } catch (error) {
    if (isPantheonError(error) && error.code === "not_found") return null;
    throw error;
  }
}

/** The session of an A2A context: the session of that id, else the one made for the context (made on first use). */
async function sessionForContext(agent: Remote<AgentDO>, contextId: string): Promise<string> {
  const sessions = await call(agent.listSessions());
  const title = `${a2aSessionPrefix}${contextId}`;
  const found = sessions.find((s) => s.id === contextId) ?? sessions.find((s) => s.title === title);
  return (found ?? (await call(agent.createSession(title)))).id;
}

/**
 * The SDK's request handler with Pantheon's admission rules in front of a message: a context id of
 * sensible size, text or data parts within the API's limits, and a message to an existing task
 * only as the answer to its approval wait.
 */
class RunRequestHandler extends DefaultRequestHandler {
  constructor(
    card: ConstructorParameters<typeof DefaultRequestHandler>[0],
    private readonly tasks: TaskStore,
    executor: AgentExecutor,
  ) {
    super(card, tasks, executor);
  }

  private async admit(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    const message = params.message;
    if (!message) throw new RequestMalformedError("params.message is required");
    if (message.contextId && (message.contextId.length > 128 || !/^[\x21-\x7e]+$/.test(message.contextId))) {
      throw new RequestMalformedError("message.contextId: at most 128 visible ASCII characters");
    }
    if (!message.taskId) {
      const text = requestTextOf(message);
      if (!text.ok) throw new RequestMalformedError(text.reason);
      return;
    }
    const task = await this.tasks.load(message.taskId, context);
    if (!task) throw new TaskNotFoundError(`Task not found: ${message.taskId}`);
    const state = task.status?.state;
    // 6 = input-required: the only state a client's message can move (terminal ones the SDK refuses).
    if (state !== 6 && state !== 3 && state !== 4 && state !== 5 && state !== 7) {
      throw new UnsupportedOperationError(
        `task ${task.id} is working; only an input-required task (an approval wait) takes an answer`,
      );
    }
    if (state === 6) {
      const answer = approvalAnswerOf(message);
      if (!answer.ok) throw new RequestMalformedError(answer.reason);
    }
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    await this.admit(params, context);
    return super.sendMessage(params, context);
  }

  override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext) {
    await this.admit(params, context);
    yield* super.sendMessageStream(params, context);
  }
}

const rpcError = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: "2.0" as const,
  id: typeof id === "string" || typeof id === "number" ? id : null,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

/** An internal error's own words stay in the log: the client gets JSON-RPC's -32603 and the request id. */
function hideInternal<T extends { error?: { code: number; message: string } }>(answer: T, requestId: string): T {
  if (answer.error?.code !== -32603) return answer;
  console.error(JSON.stringify({ level: "error", requestId, where: "a2a", message: answer.error.message }));
  return { ...answer, error: { code: -32603, message: `internal error; request id ${requestId}` } };
}

/** The agent's card URL base: its JSON-RPC endpoint, with the project in the query when it is not the default. */
function endpointOf(c: AppContext, agent: string): string {
  const project = c.get("project");
  const url = new URL(`/a2a/agents/${agent}`, c.req.url);
  if (project !== "default") url.searchParams.set("project", project);
  return url.href;
}

async function handlerFor(c: AppContext, agentName: string, version: string) {
  const project = c.get("project");
  const found = await registryStub(c.env, project).getAgent(agentName);
  if (!found.ok) return null;
  const agent = await agentStub(c.env, project, agentName);
  const tools = await call(agent.listTools());
  const card = agentCardOf(
    { name: agentName, description: found.value.description },
    tools,
    endpointOf(c, agentName),
    version,
  );
  const principal = c.get("principal");
  const now = () => Date.now();
  const store = makeRunTaskStore({
    agent: agentName,
    now,
    turn: (runId) => viaAgent(() => runTurn(agent, runId)),
    cancel: (runId) => viaAgent(async () => void (await call(agent.cancelRun(runId, principal)))),
  });
  const executor = makeRunExecutor({
    agent: agentName,
    now,
    turn: (runId) => viaAgent(() => runTurn(agent, runId)),
    cancel: (runId) => viaAgent(async () => void (await call(agent.cancelRun(runId, principal)))),
    decide: (runId, answer) =>
      viaAgent(async () => void (await call(agent.decide(runId, { ...answer, by: principal, scope: c.get("scope") })))),
    stream: ({ content, contextId, runId }) =>
      viaAgent(async () =>
        call(
          agent.chatStream({
            content,
            session: await sessionForContext(agent, contextId),
            runId,
            principal: runPrincipal(c, "a2a"),
          }),
        ),
      ),
  });
  return { card, handler: new RunRequestHandler(card, store, executor) };
}

/** A JSON-RPC stream as server-sent events; an error after the first event ends the stream with an `error` event. */
function sseOf(
  first: unknown,
  rest: AsyncIterator<unknown>,
  id: unknown,
  mapError: (error: unknown) => { code: number; message: string },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(formatSSEEvent(first)));
    },
    async pull(controller) {
      try {
        const next = await rest.next();
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        const { code, message } = mapError(error);
        controller.enqueue(encoder.encode(formatSSEErrorEvent(rpcError(id, code, message))));
        controller.close();
      }
    },
    async cancel() {
      // The client left: the run goes on in the agent (its object keeps it alive), only the stream stops.
      await rest.return?.(undefined);
    },
  });
}

/** `GET /a2a/agents/:name/.well-known/agent-card.json`: the agent's card (Protobuf JSON, A2A 1.0's wire form). */
export async function agentCardResponse(c: AppContext, version: string): Promise<Response> {
  const name = c.req.param("name") ?? "";
  const built = agentNameSchema.safeParse(name).success ? await handlerFor(c, name, version) : null;
  if (!built) {
    const error = unknownAgent(name.slice(0, 64), c.get("project"));
    return c.json(
      { error: { code: error.code, message: error.message, requestId: c.get("requestId"), details: error.details } },
      404,
    );
  }
  // The SDK's resolver reads this form back, oneofs (the security scheme) included.
  return c.json(AgentCard.toJSON(built.card) as Record<string, never>, 200, { "cache-control": "no-cache" });
}

/**
 * `POST /a2a/agents/:name`: JSON-RPC, A2A 1.0 (`SendMessage`, `SendStreamingMessage`, `GetTask`,
 * `CancelTask`) and, with `A2A-Version: 0.3` or no version header, 0.3 (`message/send`,
 * `message/stream`, `tasks/get`, `tasks/cancel`). Behind the door's entrance (`door("chat")`, ./index.ts).
 */
export async function jsonRpcResponse(c: AppContext, version: string): Promise<Response> {
  const name = c.req.param("name") ?? "";
  if (!isJsonMediaType(c.req.header("content-type"))) {
    const { code, message } = JsonRpcTransportHandler.mapToJSONRPCError(
      new ContentTypeNotSupportedError(
        `Content-Type must be application/json (got ${c.req.header("content-type") ?? "none"})`,
      ),
    );
    return c.json(rpcError(null, code, message), 415);
  }
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return c.json(rpcError(null, -32700, "Parse error: the body is not JSON"), 400);
  }
  const shape = jsonShapeProblem(body);
  if (shape?.kind === "too_deep")
    return c.json(
      rpcError(null, -32700, `Parse error: ${shape.message}`, { code: "bad_request", limit: maxJsonDepth }),
      400,
    );
  if (shape)
    return c.json(
      rpcError(null, -32600, `Invalid Request: ${shape.message}`, { code: "validation_failed", path: shape.path }),
      400,
    );
  const request = (body && typeof body === "object" && !Array.isArray(body) ? body : {}) as {
    id?: unknown;
    method?: unknown;
    params?: { message?: { taskId?: unknown } };
  };
  if (!agentNameSchema.safeParse(name).success)
    return c.json(rpcError(request.id, -32600, `'${name.slice(0, 64)}' is not an agent name`), 404);

  // Answering an input-required task decides an approval: only a token that may approve.
  const scope = c.get("scope");
  if (
    typeof request.method === "string" &&
    sendMethods.has(request.method) &&
    request.params?.message?.taskId &&
    !grants(scope, "approve")
  ) {
    return c.json(
      rpcError(
        request.id,
        -32600,
        `answering a task decides its pending approval: this needs a token with the 'approve' scope; this token has '${scope}'`,
        { code: "forbidden", needed: "approve", scope },
      ),
      403,
    );
  }
  const built = await handlerFor(c, name, version);
  if (!built) {
    const error = unknownAgent(name, c.get("project"));
    return c.json(rpcError(request.id, -32600, error.message, { code: error.code, ...error.details }), 404);
  }

  const requested = c.req.header(A2A_VERSION_HEADER) || undefined;
  const legacy = (requested ?? legacyVersion) === legacyVersion;
  const mapRaw = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const mapError = (error: unknown) => hideInternal({ error: mapRaw(error) }, c.get("requestId")).error;
  const context = new ServerCallContext({
    user: { isAuthenticated: true, userName: c.get("principal") },
    ...(requested ? { requestedVersion: requested } : {}),
  });
  try {
    validateVersion(context.requestedVersion, built.card, "JSONRPC");
    const transport = legacy
      ? new LegacyJsonRpcTransportHandler(built.handler)
      : new JsonRpcTransportHandler(built.handler);
    const answer = await transport.handle(body as Record<string, unknown>, context);
    if (!(answer && typeof answer === "object" && Symbol.asyncIterator in answer))
      return c.json(
        hideInternal(answer as { error?: { code: number; message: string } }, c.get("requestId")) as Record<
          string,
          never
        >,
      );
    const iterator = (answer as AsyncGenerator<unknown>)[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      // Refused before anything streamed: a plain JSON-RPC error, as the SDK's own server answers.
      const { code, message } = mapError(error);
      return c.json(rpcError(request.id, code, message));
    }
    if (first.done) return c.body(null, 204);
    return new Response(sseOf(first.value, iterator, request.id, mapError), {
      headers: { ...SSE_HEADERS, "x-request-id": c.get("requestId") },
    });
  } catch (error) {
    const { code, message } = mapError(error);
    return c.json(rpcError(request.id, code, message));
  }
}
