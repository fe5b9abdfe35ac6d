// `pantheon acp <agent>`: an ACP (Agent Client Protocol) agent on stdio, for editors such as Zed,
// that bridges to one Pantheon agent over its HTTP API. ACP sessions are the agent's sessions; a
// prompt is one turn streamed back as session updates (message chunks, tool calls and their
// status); an approval-gated tool call becomes a permission request whose answer approves or
// rejects it over the API (a token with the `approve` scope); cancel cancels the run.
// The ACP door lives with the others but runs in the CLI's Node process (cli/commands/acp.ts), by
// Node's own type stripping (Node >= 22.18): type-only imports, no enums; its imports of core/ are
// extensionless, resolved by cli/pantheon.ts's hook as the CLI's other imports of core/ are. It may
// import only core/ and the ACP SDK, never the worker's runtime (.dependency-cruiser.cjs checks it).
import {
  agent as acpAgent,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentContext,
  type RequestPermissionResponse,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import {
  historyUpdateOf,
  makeReplyTracker,
  makeTurnUpdates,
  permissionOptions,
  promptTextOf,
  stopReasonOf,
  toolKindOf,
  toolResultUpdate,
} from "../../../core/protocols/acp/updates";
import { readRunEvents } from "../../../core/protocols/run-events";

export interface AcpBridgeOptions {
  /** The Pantheon server, e.g. `http://127.0.0.1:8787`. */
  url: string;
  token?: string;
  project?: string;
  /** The Pantheon agent this ACP agent speaks for. */
  agent: string;
  /** The editor's side of stdio: what it writes (our input) and what it reads (our output). */
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  fetch?: typeof fetch;
  version?: string;
  /** Where diagnostics go (never stdout, which carries the protocol). */
  log?: (line: string) => void;
}

interface RunView {
  run: {
    id: string;
    sessionId: string;
    status: string;
    error?: string;
    pending: { callId: string; tool: string; arguments: unknown }[];
  };
  trace: {
    name: string;
    data: { callId?: string; tool?: string; arguments?: unknown; ok?: boolean; output?: string; error?: string };
  }[];
}

interface Turn {
  abort: AbortController;
  runId?: string;
  cancelled: boolean;
}

/** An API refusal as the JSON-RPC error the editor shows. */
function apiError(status: number, body: unknown): RequestError {
  const error = (body as { error?: { code?: string; message?: string; details?: { hint?: unknown } } } | null)?.error;
  const message = error?.message ?? `the Pantheon API answered ${status}`;
  // The API's hint (an unknown agent: `pantheon agents list`) travels with it.
  const hint = typeof error?.details?.hint === "string" ? error.details.hint : undefined;
  const data = { status, ...(error?.code ? { code: error.code } : {}), ...(hint ? { hint } : {}) };
  if (status === 401) return RequestError.authRequired(data, message);
  if (status === 400 || status === 422) return RequestError.invalidParams(data, message);
  if (status === 404) return new RequestError(-32002, message, data);
  return new RequestError(-32603, message, data);
}

/**
 * Serves ACP on `input`/`output` until the editor closes the connection.
 * @example
 * await runAcpAgent({ url: "http://127.0.0.1:8787", token, agent: "scout", input: Readable.toWeb(process.stdin), output: Writable.toWeb(process.stdout) });
 */
export async function runAcpAgent(options: AcpBridgeOptions): Promise<void> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const base = options.url.replace(/\/+$/, "");
  const agentPath = `/api/agents/${encodeURIComponent(options.agent)}`;
  const log = options.log ?? (() => {});

  const api = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (options.token) headers.set("authorization", `Bearer ${options.token}`);
    if (options.project) headers.set("x-pantheon-project", options.project);
    if (init.body !== undefined) headers.set("content-type", "application/json");
    return doFetch(`${base}${path}`, { ...init, headers });
  };
  const json = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await api(path, init);
    const body = await res.json().catch(() => null);
    if (!res.ok) throw apiError(res.status, body);
    return body as T;
  };

  const turns = new Map<string, Turn>();
  const cancel = async (turn: Turn) => {
    if (turn.cancelled) return;
    turn.cancelled = true;
    if (turn.runId) {
      const res = await api(`${agentPath}/runs/${turn.runId}/cancel`, { method: "POST" }).catch(() => null);
      if (res && !res.ok && res.status !== 409) log(`cancel of run ${turn.runId} answered ${res.status}`);
    }
    turn.abort.abort();
  };

  /** The run where it stands, and the tool results its trace holds. */
  const runView = (runId: string) => json<RunView>(`${agentPath}/runs/${runId}`);
  const replyOf = async (sessionId: string, runId: string): Promise<string | null> => {
    const page = await json<{ messages: { role: string; content: string; runId?: string }[] }>(
      `${agentPath}/messages?session=${encodeURIComponent(sessionId)}&limit=20`,
    );
    return page.messages.find((m) => m.role === "assistant" && m.runId === runId)?.content ?? null;
  };

  async function prompt(client: AgentContext, sessionId: string, content: string, signal: AbortSignal) {
    if (turns.has(sessionId))
      throw RequestError.invalidRequest({ sessionId }, "a prompt is already running in this session");
    const turn: Turn = { abort: new AbortController(), cancelled: false };
    turns.set(sessionId, turn);
    const onAbort = () => void cancel(turn);
    signal.addEventListener("abort", onAbort);
    const update = (u: SessionUpdate) => client.notify(methods.client.session.update, { sessionId, update: u });
    try {
      const res = await api(`${agentPath}/messages`, {
        method: "POST",
        headers: { accept: "text/event-stream" },
        body: JSON.stringify({ content, session: sessionId }),
        signal: turn.abort.signal,
      });
      if (!res.ok || !res.body) throw apiError(res.status, await res.json().catch(() => null));
      const reply = makeReplyTracker();
      // Each call announced (tool_call) before its updates, approval-gated ones included.
      const calls = makeTurnUpdates();
      const closed = new Set<string>();
      let status: string | undefined;
      let finalReply: string | null = null;
      let error: string | undefined;
      try {
        for await (const event of readRunEvents(res.body)) {
          if (event.type === "run") turn.runId = event.runId;
          else if (event.type === "token") reply.token(event.text);
          else if (event.type === "tool_call") reply.toolCall();
          else if (event.type === "tool_result") closed.add(event.callId);
          else if (event.type === "done") {
            status = event.status;
            finalReply = event.reply?.content ?? null;
          } else if (event.type === "error") error = `${event.code}: ${event.message}`;
          for (const u of calls.of(event)) await update(u);
        }
      } catch (streamError) {
        if (!turn.cancelled) throw streamError;
      }
      if (turn.cancelled) return { stopReason: "cancelled" as const };
      if (!turn.runId) throw new RequestError(-32603, error ?? "the agent did not start a run");
      const runId = turn.runId;

      // The stream ends without `done` when the run waits for a person: ask the editor's user.
      let view = status ? null : await runView(runId);
      while (view?.run.status === "waiting_approval") {
        for (const pending of view.run.pending) {
          for (const u of calls.announce({ callId: pending.callId, name: pending.tool, arguments: pending.arguments }))
            await update(u);
          const toolCall = {
            toolCallId: pending.callId,
            title: pending.tool,
            kind: toolKindOf(pending.tool),
            status: "pending" as const,
            rawInput: pending.arguments,
          };
          let answer: RequestPermissionResponse | null = null;
          try {
            answer = await client.request(
              methods.client.session.requestPermission,
              { sessionId, toolCall, options: permissionOptions },
              { cancellationSignal: turn.abort.signal },
            );
          } catch (reason) {
            if (!turn.cancelled) throw reason;
          }
          if (!answer || answer.outcome.outcome === "cancelled" || turn.cancelled) {
            await cancel(turn);
            return { stopReason: "cancelled" as const };
          }
          const decision = answer.outcome.optionId === "approve" ? "approve" : "reject";
          const decided = await api(`${agentPath}/runs/${runId}/approval`, {
            method: "POST",
            body: JSON.stringify({ decision, callId: pending.callId }),
          });
          if (decided.status === 403) {
            // The token may talk, not decide: the run keeps waiting for someone who may.
            const why =
              ((await decided.json().catch(() => null)) as { error?: { message?: string } } | null)?.error?.message ??
              "forbidden";
            await update({
              sessionUpdate: "agent_message_chunk",
              content: {
                type: "text",
                text: `Approval refused (${why}). Run ${runId} waits for a person: pantheon runs approve ${options.agent} ${runId}`,
              },
            });
            return { stopReason: "end_turn" as const };
          }
          if (!decided.ok) throw apiError(decided.status, await decided.json().catch(() => null));
          await update({
            sessionUpdate: "tool_call_update",
            toolCallId: pending.callId,
            status: decision === "approve" ? "in_progress" : "failed",
            ...(decision === "reject"
              ? { content: [{ type: "content", content: { type: "text", text: "rejected" } }] }
              : {}),
          });
          if (decision === "reject") closed.add(pending.callId);
        }
        // A decision drives the run on to its next stop, over the API; its tool results are in the trace.
        view = await runView(runId);
        for (const step of view.trace) {
          const callId = step.data.callId;
          // A call the run made after the decision shows (announced) before its result.
          if (step.name === "tool_call" && callId)
            for (const u of calls.announce({ callId, name: step.data.tool ?? "tool", arguments: step.data.arguments }))
              await update(u);
          if (step.name !== "tool_result" || !callId || closed.has(callId)) continue;
          closed.add(callId);
          await update(
            toolResultUpdate(callId, {
              ok: step.data.ok === true,
              ...(step.data.output !== undefined ? { output: step.data.output } : {}),
              ...(step.data.error !== undefined ? { error: step.data.error } : {}),
            }),
          );
        }
      }
      if (view) {
        status = view.run.status;
        error = view.run.error ?? error;
        finalReply = status === "completed" ? await replyOf(sessionId, runId) : null;
      }
      if (status === "completed" && finalReply) {
        const tail = reply.tail(finalReply);
        if (tail) await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: tail } });
      }
      const stopReason = stopReasonOf(status ?? "failed");
      if (!stopReason)
        throw new RequestError(-32603, `run ${runId} ${status ?? "ended"}: ${error ?? "no reason recorded"}`, {
          runId,
          status,
        });
      return { stopReason };
    } finally {
      signal.removeEventListener("abort", onAbort);
      turns.delete(sessionId);
    }
  }

  const app = acpAgent({ name: "pantheon" })
    .onRequest(methods.agent.initialize, async () => {
      // The agent must exist and the token must open it: say so now, not at the first prompt.
      await json(agentPath);
      const { version } = await json<{ version?: string }>("/api/health");
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
        },
        agentInfo: {
          name: `pantheon/${options.agent}`,
          title: `${options.agent} (Pantheon)`,
          version: options.version ?? version ?? "0.0.0",
        },
        authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const folder = params.cwd.split(/[\\/]/).filter(Boolean).at(-1) ?? params.cwd;
      const session = await json<{ id: string }>(`${agentPath}/sessions`, {
        method: "POST",
        body: JSON.stringify({ title: `acp: ${folder}`.slice(0, 200) }),
      });
      return { sessionId: session.id };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const { sessions } = await json<{ sessions: { id: string }[] }>(`${agentPath}/sessions`);
      if (!sessions.some((s) => s.id === params.sessionId)) throw RequestError.sessionNotFound(params.sessionId);
      const page = await json<{ messages: { role: string; content: string }[] }>(
        `${agentPath}/messages?session=${encodeURIComponent(params.sessionId)}&limit=200`,
      );
      // The API pages newest first; the editor replays the conversation in order.
      for (const message of [...page.messages].reverse()) {
        const update = historyUpdateOf(message);
        if (update) await client.notify(methods.client.session.update, { sessionId: params.sessionId, update });
      }
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client, signal }) => {
      const text = promptTextOf(params.prompt);
      if (!text.ok) throw RequestError.invalidParams({ field: "prompt" }, text.reason);
      return prompt(client, params.sessionId, text.text, signal);
    })
    .onNotification(methods.agent.session.cancel, async ({ params }) => {
      const turn = turns.get(params.sessionId);
      if (turn) await cancel(turn);
    });

  const connection = app.connect(ndJsonStream(options.output, options.input));
  await connection.closed;
}
