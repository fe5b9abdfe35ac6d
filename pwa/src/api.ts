import { hc, type ClientResponse } from "hono/client";
import type { JSONParsed } from "hono/utils/types";
import type { LiveState, RunEvent as ServerRunEvent } from "../../durable-objects/agent/chat/live";
import type { ApiRoutes } from "../../workers/api";
import type { DiffStats, TaskSpec } from "../../core/work";
import { ApiError } from "./errors";

/** The state an agent syncs over its WebSocket. */
export type { LiveState };
/** One run event as it arrives (SSE, or `run_event` over the WebSocket): the server's, after JSON. */
export type RunEvent = JSONParsed<ServerRunEvent>;

/** The worker's routes as `hc` calls them; types only, nothing of the worker is bundled. */
type Client = ReturnType<typeof hc<ApiRoutes>>;
type AgentRoutes = Client["api"]["agents"][":name"];
/** What a call answers with: the JSON its route returns (`json()` of the success response). */
type Json<Call> = Call extends (...args: never[]) => Promise<infer R> ? JsonOf<R> : never;
type JsonOf<R> =
  R extends ClientResponse<infer T, infer _Status, infer Format> ? (Format extends "json" ? T : never) : never;

// The API's shapes, read from the routes themselves (workers/api): a server change that breaks
// the PWA fails its type check.
export type Agent = Json<AgentRoutes["$get"]>;
export type ResolvedModel = NonNullable<Agent["resolvedModel"]>;
export type StoredMessage = Json<AgentRoutes["messages"]["$get"]>["messages"][number];
export type ToolCall = NonNullable<StoredMessage["toolCalls"]>[number];
export type SendResult = Json<AgentRoutes["messages"]["$post"]>;
export type Session = Json<AgentRoutes["sessions"]["$get"]>["sessions"][number];
export type RunSummary = Json<AgentRoutes["runs"]["$get"]>["runs"][number];
export type RunDetail = Json<AgentRoutes["runs"][":id"]["$get"]>;
export type TraceStep = RunDetail["trace"][number];
export type Approval = Json<Client["api"]["approvals"]["$get"]>["approvals"][number];
export type ToolSpec = Json<AgentRoutes["tools"]["$get"]>["tools"][number];
export type ToolInvokeResult = Json<AgentRoutes["tools"][":tool"]["invoke"]["$post"]>;
export type ContextResult = Json<AgentRoutes["context"]["$get"]>;
export type ContextItem = ContextResult["items"][number];
export type ScriptInfo = Json<AgentRoutes["script"]["$get"]>;
export type Schedule = Json<AgentRoutes["schedules"]["$get"]>["schedules"][number];
export type EvalRunSummary = Json<AgentRoutes["evals"]["$get"]>["runs"][number];
export type BusSummary = Json<Client["api"]["bus"]["$get"]>;
export type BusCounts = BusSummary["agents"][number];
export type Conversation = Json<Client["api"]["conversations"][":id"]["$get"]>;
export type BusHop = Conversation["hops"][number];
export type WorkflowView = Json<AgentRoutes["workflows"][":id"]["$get"]>;
type FeatureRoutes = Client["api"]["features"][":feature"];
export type TokenInfo = Json<Client["api"]["tokens"]["$get"]>["tokens"][number];
export type InviteInfo = Json<Client["api"]["invites"]["$get"]>["invites"][number];
export type CreatedInvite = Json<Client["api"]["invites"]["$post"]>;
export type PushSubscriptionInfo = Json<Client["api"]["push"]["subscriptions"]["$get"]>["subscriptions"][number];
export type FeatureSummary = Json<Client["api"]["features"][":feature"]["$get"]>;
export type Plan = Json<FeatureRoutes["plan"]["$get"]>;
export type PlanComment = Plan["comments"][number];
export type FeatureTask = Json<FeatureRoutes["tasks"]["$get"]>["tasks"][number];
export type FeatureReport = Json<FeatureRoutes["report"]["$get"]>;
export type TaskReport = FeatureReport["tasks"][number];
/**
 * One task with its spec, runs, answer and pending changes. The route answers the feature object's
 * row as a plain record, so the fields past the board's are read with the types core/work gives them.
 */
export type TaskDetail = Omit<FeatureTask, "diff" | "overlayFiles"> & {
  /** Committed changes: null until the task's first commit. */
  diff: DiffStats | null;
  spec: JSONParsed<TaskSpec> | null;
  runIds: string[];
  answer: string | null;
  answeredBy: string | null;
  /** Changes not committed yet, and the same as a unified diff. */
  pending: DiffStats;
  patch: string;
};

/** What the chat sends: text, and the ids of pictures uploaded for it (`uploadImage`). */
export interface MessageInput {
  content?: string;
  session?: string;
  images?: string[];
  /** The message's own id (kept with it in the outbox): sent again, the server answers the first send. */
  clientId?: string;
}

/** A picture the server stored: its id goes into a message's `images`. */
export interface UploadedImage {
  id: string;
  type: string;
  bytes: number;
  width?: number;
  height?: number;
}

export interface ApiOptions {
  getToken: () => string | null;
  getProject: () => string;
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** Path parameters go into the URL as they are (`hc` does not escape them). */
const enc = encodeURIComponent;

/**
 * A thin client for the Pantheon HTTP API, typed by the worker's routes (Hono's `hc`). Every
 * failure becomes an {@link ApiError} (status 0 when the network is down), so callers never parse
 * responses themselves.
 *
 * @example
 * const api = makeApi({ getToken: () => localStorage.getItem("pantheon.token"), getProject: () => "default" });
 * const { agents } = await api.listAgents();
 */
export function makeApi(options: ApiOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const client = hc<ApiRoutes>(options.baseUrl ?? "", {
    fetch: doFetch,
    headers: () => {
      const token = options.getToken();
      return {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        "x-pantheon-project": options.getProject(),
        accept: "application/json",
      };
    },
  });

  /** Sends one request; a refused one (not 2xx) becomes the ApiError its body describes. */
  async function reach<R extends ClientResponse<unknown>>(request: Promise<R>): Promise<R> {
    let res: R;
    try {
      res = await request;
    } catch (cause) {
      if ((cause as Error)?.name === "AbortError") throw cause;
      throw new ApiError(0, "network", "The network request failed", undefined, undefined, { cause });
    }
    if (!res.ok) throw await toApiError(res);
    return res;
  }

  async function json<R extends ClientResponse<unknown>>(request: Promise<R>): Promise<JsonOf<R>> {
    const res = await reach(request);
    if (res.status === 204) return undefined as JsonOf<R>;
    if (!(res.headers.get("content-type") ?? "").includes("json")) {
      // An API route the server does not have yet can fall through to the app shell's HTML.
      throw new ApiError(404, "not_available", "This endpoint is not available on this server");
    }
    return (await res.json()) as JsonOf<R>;
  }

  /**
   * A call by path, for routes the worker's type does not name yet (the Work routes other changes
   * add: commits, branches, run-all…): the same headers and errors as every typed call.
   */
  function headers(): Record<string, string> {
    const token = options.getToken();
    return {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "x-pantheon-project": options.getProject(),
      accept: "application/json",
    };
  }

  async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const init: RequestInit = {
      method,
      headers: { ...headers(), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    };
    return json(
      doFetch(`${options.baseUrl ?? ""}${path}`, init) as unknown as Promise<ClientResponse<T, 200, "json">>,
    ) as Promise<T>;
  }

  const agents = client.api.agents;
  const agent = (name: string) => ({ name: enc(name) });
  const run = (name: string, runId: string) => ({ name: enc(name), id: enc(runId) });
  const features = client.api.features;
  const feature = (name: string) => ({ feature: enc(name) });
  const featureTask = (name: string, task: number | string) => ({ feature: enc(name), task: String(task) });

  return {
    health: () => json(client.api.health.$get()),
    listAgents: () => json(agents.$get()),
    createAgent: (input: { name: string; description?: string; systemPrompt?: string; model?: Agent["model"] }) =>
      json(agents.$post({ json: input })),
    getAgent: (name: string) => json(agents[":name"].$get({ param: agent(name) })),
    listMessages: (name: string, query: { session?: string; cursor?: string; limit?: number } = {}) =>
      json(
        agents[":name"].messages.$get({
          param: agent(name),
          query: given({ ...query, limit: query.limit?.toString() }),
        }),
      ),
    sendMessage: (name: string, input: MessageInput) =>
      json(agents[":name"].messages.$post({ param: agent(name), json: input })),
    /** Streams a reply; resolves once the server closes the stream. */
    streamMessage: async (
      name: string,
      input: MessageInput,
      onEvent: (event: RunEvent) => void,
      signal?: AbortSignal,
    ): Promise<void> => {
      const request = agents[":name"].messages.$post(
        { param: agent(name), json: input },
        { headers: { accept: "text/event-stream" }, init: { signal } },
      );
      const res = await reach(request);
      if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
        // A server without streaming answers JSON: replay it as the events a stream would have sent.
        const result = (await res.json()) as SendResult;
        onEvent({ type: "run", runId: result.runId, sessionId: result.sessionId, userMessage: result.userMessage });
        onEvent({ type: "done", runId: result.runId, status: result.status, reply: result.reply });
        return;
      }
      await readEventStream(res, onEvent);
    },
    listSessions: (name: string) => json(agents[":name"].sessions.$get({ param: agent(name) })),
    createSession: (name: string, title?: string) =>
      json(agents[":name"].sessions.$post({ param: agent(name), json: { title } })),
    listRuns: (name: string, limit = 20) =>
      json(agents[":name"].runs.$get({ param: agent(name), query: { limit: String(limit) } })),
    getRun: (name: string, runId: string) => json(agents[":name"].runs[":id"].$get({ param: run(name, runId) })),
    decide: (
      name: string,
      runId: string,
      input: { decision: "approve" | "reject"; callId?: string; reason?: string },
    ) => json(agents[":name"].runs[":id"].approval.$post({ param: run(name, runId), json: input })),
    listApprovals: () => json(client.api.approvals.$get()),
    /** Answers an MCP server's question (elicitation): accept with the form's values, or decline. */
    answerMcpQuestion: (
      name: string,
      id: string,
      answer: { action: "accept"; content: Record<string, string | number | boolean> } | { action: "decline" },
    ): Promise<void> =>
      reach(
        agents[":name"].mcp.questions[":question"].$post({ param: { name: enc(name), question: id }, json: answer }),
      ).then(() => undefined),
    listTools: (name: string) => json(agents[":name"].tools.$get({ param: agent(name), query: {} })),
    invokeTool: (name: string, tool: string, args: Record<string, unknown>) =>
      json(
        agents[":name"].tools[":tool"].invoke.$post({
          param: { name: enc(name), tool: enc(tool) },
          json: { arguments: args },
        }),
      ),
    getContext: (name: string, q: string, maxTokens?: number) =>
      json(agents[":name"].context.$get({ param: agent(name), query: given({ q, maxTokens: maxTokens?.toString() }) })),
    getScript: (name: string) => json(agents[":name"].script.$get({ param: agent(name) })),
    getSchedules: (name: string) => json(agents[":name"].schedules.$get({ param: agent(name) })),
    /** The agent's eval runs, newest first (`pantheon eval run` makes them). */
    listEvals: (name: string, limit = 10) =>
      json(agents[":name"].evals.$get({ param: agent(name), query: { limit: String(limit) } })),
    /** Pauses or resumes one behavior; answers the behavior's schedule as it is now. */
    setSchedulePaused: (name: string, behavior: string, paused: boolean) => {
      const route = agents[":name"].schedules[":behavior"];
      const param = { name: enc(name), behavior: enc(behavior) };
      return json(paused ? route.pause.$post({ param }) : route.resume.$post({ param }));
    },
    getBus: () => json(client.api.bus.$get()),
    getWorkflow: (name: string, id: string) =>
      json(agents[":name"].workflows[":id"].$get({ param: { name: enc(name), id: enc(id) } })),
    getConversation: (id: string) => json(client.api.conversations[":id"].$get({ param: { id: enc(id) } })),
    listFeatures: () => json(features.$get()),
    getFeature: (name: string) => json(features[":feature"].$get({ param: feature(name) })),
    getPlan: (name: string, version?: number) =>
      json(features[":feature"].plan.$get({ param: feature(name), query: given({ version: version?.toString() }) })),
    commentPlan: (name: string, input: { version?: number; line: number; body: string }) =>
      json(features[":feature"].plan.comments.$post({ param: feature(name), json: input })),
    approvePlan: (name: string, version?: number) =>
      json(features[":feature"].plan.approve.$post({ param: feature(name), json: version ? { version } : {} })),
    listTasks: (name: string) => json(features[":feature"].tasks.$get({ param: feature(name) })),
    getTask: async (name: string, task: number | string) =>
      (await json(
        features[":feature"].tasks[":task"].$get({ param: featureTask(name, task) }),
      )) as unknown as TaskDetail,
    getReport: (name: string) => json(features[":feature"].report.$get({ param: feature(name) })),
    startTask: (name: string, task: number | string) =>
      json(features[":feature"].tasks[":task"].start.$post({ param: featureTask(name, task) })),
    commitTask: (name: string, task: number | string, key: string) =>
      json(features[":feature"].tasks[":task"].commit.$post({ param: featureTask(name, task), json: { key } })),
    discardTask: (name: string, task: number | string) =>
      json(features[":feature"].tasks[":task"].discard.$post({ param: featureTask(name, task) })),
    listTokens: () => json(client.api.tokens.$get()),
    /** Signs that device out (204: nothing to read). */
    revokeToken: async (id: string): Promise<void> =>
      void (await reach(client.api.tokens[":id"].$delete({ param: { id: enc(id) } }))),
    listInvites: () => json(client.api.invites.$get()),
    createInvite: (input: { name: string; scope: "chat" | "approve" | "admin"; expiresIn?: number }) =>
      json(client.api.invites.$post({ json: input })),
    withdrawInvite: async (id: string): Promise<void> =>
      void (await reach(client.api.invites[":id"].$delete({ param: { id: enc(id) } }))),
    /** Opens a sign-in link: needs no token (the code is the credential); answers this device's own token, once. */
    redeemInvite: (input: { code: string; device?: string }) => json(client.api.invites.redeem.$post({ json: input })),
    /** Web Push (docs/push.md): the deployment's key, this person's devices, the agents they muted. */
    pushKey: () => json(client.api.push.key.$get()),
    subscribePush: (subscription: { endpoint: string; keys: { p256dh: string; auth: string } }) =>
      json(client.api.push.subscriptions.$post({ json: subscription })),
    listPushSubscriptions: () => json(client.api.push.subscriptions.$get()),
    removePushSubscription: async (id: string) =>
      void (await reach(client.api.push.subscriptions[":id"].$delete({ param: { id: enc(id) } }))),
    listMutes: () => json(client.api.push.mutes.$get()),
    mute: async (agent: string, muted: boolean) =>
      void (await reach(
        muted
          ? client.api.push.mutes[":agent"].$put({ param: { agent: enc(agent) } })
          : client.api.push.mutes[":agent"].$delete({ param: { agent: enc(agent) } }),
      )),
    /** Stores one picture's bytes for this agent; the server sniffs the type and may refuse it (413, 415). */
    uploadImage: (name: string, blob: Blob, type: string) =>
      json(
        doFetch(`${options.baseUrl ?? ""}/api/agents/${enc(name)}/images`, {
          method: "POST",
          headers: { ...headers(), "content-type": type },
          body: blob,
        }) as unknown as Promise<ClientResponse<UploadedImage, 201, "json">>,
      ),
    /** A stored picture's bytes: fetched with the token, so it is shown through a blob URL, never a bare src. */
    getImage: async (name: string, id: string): Promise<Blob> => {
      const res = await reach(
        doFetch(`${options.baseUrl ?? ""}/api/agents/${enc(name)}/images/${enc(id)}`, {
          headers: headers(),
        }) as unknown as Promise<ClientResponse<unknown>>,
      );
      return (res as unknown as Response).blob();
    },
    /** The Work routes past the typed client's (./api-work.ts names them and their shapes). */
    request,
    answerTask: (name: string, task: number | string, answer: string) =>
      json(features[":feature"].tasks[":task"].answer.$post({ param: featureTask(name, task), json: { answer } })),
  };
}

export type Api = ReturnType<typeof makeApi>;

/** A query without its empty values: `?session=` would be a session id that is not valid. */
function given<Q extends Record<string, string | undefined>>(query: Q): Q {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== "")) as Q;
}

async function toApiError(res: ClientResponse<unknown>): Promise<ApiError> {
  const requestId = res.headers.get("x-request-id") ?? undefined;
  try {
    const data = (await res.json()) as {
      error?: { code?: string; message?: string; requestId?: string; details?: ApiError["details"] };
    };
    const e = data.error ?? {};
    return new ApiError(
      res.status,
      e.code ?? "unknown",
      e.message ?? res.statusText,
      e.requestId ?? requestId,
      e.details,
    );
  } catch {
    // Not the contract's error body (an older server or a proxy page): keep the status only.
    return new ApiError(res.status, res.status === 404 ? "not_available" : "unknown", res.statusText, requestId);
  }
}

/** Parses `event: name\ndata: json` blocks as they arrive; tolerant of CRLF and split chunks. */
async function readEventStream(
  res: { body: ReadableStream<Uint8Array<ArrayBuffer>> | null },
  onEvent: (event: RunEvent) => void,
): Promise<void> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n/g, "\n");
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseBlock(block);
        if (event) onEvent(event);
      }
    }
  } catch (cause) {
    if ((cause as Error)?.name === "AbortError") throw cause;
    throw new ApiError(0, "network", "The connection dropped while the reply was streaming", undefined, undefined, {
      cause,
    });
  }
  const last = parseBlock(buffer);
  if (last) onEvent(last);
}

function parseBlock(block: string): RunEvent | null {
  let name = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (data.length === 0) return null;
  try {
    const payload = JSON.parse(data.join("\n")) as Record<string, unknown>;
    return { ...payload, type: name !== "message" ? name : ((payload.type as string | undefined) ?? name) } as RunEvent;
  } catch {
    return null;
  }
}
