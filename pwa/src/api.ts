import { ApiError } from "./errors";
import type {
  Agent, Approval, BusCounts, ContextResult, Conversation, RunEvent, RunSummary, Schedule, ScriptInfo, Session,
  StoredMessage, ToolInvokeResult, ToolSpec, TraceStep,
} from "./types";

export interface ApiOptions {
  getToken: () => string | null;
  getProject: () => string;
  baseUrl?: string;
  fetch?: typeof fetch;
}

export interface SendResult {
  runId: string;
  sessionId: string;
  status: string;
  reply: StoredMessage | null;
  userMessage: StoredMessage;
}

const enc = encodeURIComponent;

/**
 * A thin, typed client for the Pantheon HTTP API. Every failure becomes an {@link ApiError}
 * (status 0 when the network is down), so callers never parse responses themselves.
 *
 * @example
 * const api = makeApi({ getToken: () => localStorage.getItem("pantheon.token"), getProject: () => "default" });
 * const { agents } = await api.listAgents();
 */
export function makeApi(options: ApiOptions) {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const base = options.baseUrl ?? "";

  async function raw(path: string, init: RequestInit = {}, accept = "application/json"): Promise<Response> {
    const headers = new Headers(init.headers);
    const token = options.getToken();
    if (token) headers.set("authorization", `Bearer ${token}`);
    headers.set("x-pantheon-project", options.getProject());
    if (!headers.has("accept")) headers.set("accept", accept);
    if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    let res: Response;
    try {
      res = await doFetch(base + path, { ...init, headers });
    } catch (cause) {
      if ((cause as Error)?.name === "AbortError") throw cause;
      throw new ApiError(0, "network", "The network request failed", undefined, undefined, { cause });
    }
    if (!res.ok) throw await toApiError(res);
    return res;
  }

  async function json<T>(path: string, init?: RequestInit): Promise<T> {
    const res = await raw(path, init);
    if (res.status === 204) return undefined as T;
    if (!(res.headers.get("content-type") ?? "").includes("json")) {
      // An API route the server does not have yet can fall through to the app shell's HTML.
      throw new ApiError(404, "not_available", "This endpoint is not available on this server");
    }
    return (await res.json()) as T;
  }

  const body = (value: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(value) });
  const agentPath = (name: string) => `/api/agents/${enc(name)}`;

  return {
    health: () => json<{ ok: boolean; version?: string }>("/api/health"),
    listAgents: () => json<{ agents: Agent[] }>("/api/agents"),
    createAgent: (input: { name: string; description?: string; systemPrompt?: string; model?: Agent["model"] }) =>
      json<Agent>("/api/agents", body(input)),
    getAgent: (name: string) => json<Agent>(agentPath(name)),
    listMessages: (name: string, query: { session?: string; cursor?: string; limit?: number } = {}) =>
      json<{ messages: StoredMessage[]; nextCursor: string | null }>(`${agentPath(name)}/messages${qs(query)}`),
    sendMessage: (name: string, input: { content: string; session?: string }) =>
      json<SendResult>(`${agentPath(name)}/messages`, body(input)),
    /** Streams a reply; resolves once the server closes the stream. */
    streamMessage: async (
      name: string,
      input: { content: string; session?: string },
      onEvent: (event: RunEvent) => void,
      signal?: AbortSignal,
    ): Promise<void> => {
      const res = await raw(`${agentPath(name)}/messages`, { ...body(input), signal }, "text/event-stream");
      const type = res.headers.get("content-type") ?? "";
      if (!type.includes("text/event-stream")) {
        // A server without streaming answers JSON: replay it as the events a stream would have sent.
        const result = (await res.json()) as SendResult;
        onEvent({ type: "run", runId: result.runId, sessionId: result.sessionId, userMessage: result.userMessage });
        onEvent({ type: "done", runId: result.runId, status: result.status, reply: result.reply });
        return;
      }
      await readEventStream(res, onEvent);
    },
    listSessions: (name: string) => json<{ sessions: Session[] }>(`${agentPath(name)}/sessions`),
    createSession: (name: string, title?: string) => json<Session>(`${agentPath(name)}/sessions`, body({ title })),
    listRuns: (name: string, limit = 20) => json<{ runs: RunSummary[] }>(`${agentPath(name)}/runs?limit=${limit}`),
    getRun: (name: string, runId: string) =>
      json<{ run: RunSummary; trace: TraceStep[] }>(`${agentPath(name)}/runs/${enc(runId)}`),
    decide: (name: string, runId: string, input: { decision: "approve" | "reject"; callId?: string; reason?: string }) =>
      json<RunSummary>(`${agentPath(name)}/runs/${enc(runId)}/approval`, body(input)),
    listApprovals: () => json<{ approvals: Approval[] }>("/api/approvals"),
    listTools: (name: string) => json<{ tools: ToolSpec[] }>(`${agentPath(name)}/tools`),
    invokeTool: (name: string, tool: string, args: unknown) =>
      json<ToolInvokeResult>(`${agentPath(name)}/tools/${enc(tool)}/invoke`, body({ arguments: args })),
    getContext: (name: string, q: string, maxTokens?: number) => json<ContextResult>(`${agentPath(name)}/context${qs({ q, maxTokens })}`),
    getScript: (name: string) => json<ScriptInfo>(`${agentPath(name)}/script`),
    getSchedules: (name: string) => json<{ schedules: Schedule[] }>(`${agentPath(name)}/schedules`),
    /** Pauses or resumes one behavior; answers the behavior's schedule as it is now. */
    setSchedulePaused: (name: string, behavior: string, paused: boolean) =>
      json<Schedule>(`${agentPath(name)}/schedules/${enc(behavior)}/${paused ? "pause" : "resume"}`, { method: "POST" }),
    getBus: () => json<{ agents: BusCounts[]; total: Omit<BusCounts, "agent"> }>("/api/bus"),
    getConversation: (id: string) => json<Conversation>(`/api/conversations/${enc(id)}`),
  };
}

export type Api = ReturnType<typeof makeApi>;

function qs(query: Record<string, string | number | undefined>): string {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined && v !== "");
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}` : "";
}

async function toApiError(res: Response): Promise<ApiError> {
  const requestId = res.headers.get("x-request-id") ?? undefined;
  try {
    const data = (await res.json()) as { error?: { code?: string; message?: string; requestId?: string; details?: ApiError["details"] } };
    const e = data.error ?? {};
    return new ApiError(res.status, e.code ?? "unknown", e.message ?? res.statusText, e.requestId ?? requestId, e.details);
  } catch {
    // Not the contract's error body (an older server or a proxy page): keep the status only.
    return new ApiError(res.status, res.status === 404 ? "not_available" : "unknown", res.statusText, requestId);
  }
}

/** Parses `event: name\ndata: json` blocks as they arrive; tolerant of CRLF and split chunks. */
async function readEventStream(res: Response, onEvent: (event: RunEvent) => void): Promise<void> {
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
    throw new ApiError(0, "network", "The connection dropped while the reply was streaming", undefined, undefined, { cause });
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
    return { ...payload, type: name !== "message" ? name : (payload.type as string | undefined) ?? name } as RunEvent;
  } catch {
    return null;
  }
}
