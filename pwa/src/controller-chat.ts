import type { Api, RunEvent, StoredMessage } from "./api";
import { describeUploadError, makePictureViewer, uploadPictures } from "./chat-pictures";
import {
  addLocalMessage,
  applyRunEvent,
  lastSeenId,
  mergeHistory,
  removeLocal,
  restoreFromTrace,
  type ChatImage,
} from "./chat-state";
import { describeError, isNetworkError } from "./errors";
import type { LiveConnection, LiveOptions } from "./live";
import type { Outbox, QueuedMessage, QueuedPicture } from "./outbox";
import type { Picture } from "./pictures";
import { emptyChat, type Store } from "./state";

export interface ChatDeps {
  api: Api;
  store: Store;
  outbox: Outbox;
  now: () => number;
  randomId: () => string;
  getToken: () => string | null;
  connectLive: ((options: LiveOptions) => LiveConnection) | null;
  location: { host: string; protocol: string };
  requestBackgroundSync: () => void;
}

/** How many of the newest replies on screen get their runs' tool calls back from the trace. */
const RESTORED_RUNS = 10;

const OFFLINE_QUEUED = "You're offline; your message is queued and will be sent when the connection returns.";

/** A queued message the server will never take (a picture it refuses): it leaves the outbox. */
class RefusedQueued extends Error {
  override readonly name = "RefusedQueued";
  constructor(
    readonly queued: QueuedMessage,
    readonly text: string,
  ) {
    super(text);
  }
}

/**
 * Pictures shown from this device's own bytes (before upload, or while queued). A file the device
 * could not read as a picture is not drawn: the server's answer about it comes next.
 */
function localImages(pictures: Omit<QueuedPicture, "id">[]): ChatImage[] {
  return pictures.flatMap((p) =>
    p.width ? [{ url: URL.createObjectURL(p.blob), type: p.type, width: p.width, height: p.height }] : [],
  );
}

function releaseImages(images: ChatImage[]): void {
  for (const i of images) if (i.url) URL.revokeObjectURL(i.url);
}

/** The chat half of the controller: sending, streaming, live updates, catch-up and the outbox. */
export function makeChatFeature(deps: ChatDeps) {
  const { api, store } = deps;
  let live: LiveConnection | null = null;
  let abort: AbortController | null = null;
  /** Runs streamed to this page over SSE; their WebSocket echoes are ignored. */
  const ownRuns = new Set<string>();
  const runSessions = new Map<string, string>();
  /** Runs whose tool calls are on screen: streamed here, or rebuilt (or being rebuilt) from their trace. */
  const shown = new Set<string>();
  let catchingUp: Promise<void> | null = null;
  const viewer = makePictureViewer({ api, store });
  /** Blob URLs of queued messages' pictures, released once each is sent. */
  const queuedImages = new Map<string, ChatImage[]>();

  const chat = () => store.get().chat;

  async function open(agent: string, session?: string): Promise<void> {
    const current = chat();
    if (
      current.agent === agent &&
      (session ?? current.sessionId) === current.sessionId &&
      current.history.status !== "idle"
    ) {
      if (current.history.status === "error") await catchUp();
      return;
    }
    close();
    store.setChat(() => ({ ...emptyChat(), agent, sessionId: session ?? null, history: { status: "loading" } }));
    startLive(agent);
    void loadSessions(agent);
    await catchUp();
    await showQueued();
    await loadApprovals();
  }

  function close(): void {
    viewer.forget();
    live?.close();
    live = null;
    abort?.abort();
    abort = null;
    shown.clear();
  }

  function startLive(agent: string): void {
    const token = deps.getToken();
    if (!deps.connectLive || !token) return;
    const project = store.get().project;
    live = deps.connectLive({
      agent,
      project,
      token,
      host: deps.location.host,
      secure: deps.location.protocol === "https:",
      onState: (agentState) => store.setChat((c) => (c.agent === agent ? { ...c, agentState } : c)),
      onStatus: (status) => store.setChat((c) => (c.agent === agent ? { ...c, live: status } : c)),
      onReconnect: () => void catchUp(),
      onRunEvent: (runId, event) => onLiveEvent(agent, runId, event),
    });
  }

  function onLiveEvent(agent: string, runId: string, event: RunEvent): void {
    const c = chat();
    if (c.agent !== agent || ownRuns.has(runId) || c.busy) return;
    if (event.type === "run") runSessions.set(runId, event.sessionId);
    const session = runSessions.get(runId);
    if (session && c.sessionId && session !== c.sessionId) return;
    shown.add(runId);
    store.setChat((s) => ({ ...s, items: applyRunEvent(s.items, event, { runId }) }));
    // A message sent with pictures from another device: its pictures load as it appears.
    if (event.type === "run") void viewer.show(agent, chat().items);
    if (event.type === "done") void catchUp().then(() => enrich(agent, runId));
    if (event.type === "status" && event.status === "waiting_approval") void loadApprovals();
  }

  /** Tool calls the stream left nameless (refused by a gate) are named from the run's trace. */
  async function enrich(agent: string, runId: string): Promise<void> {
    if (!chat().items.some((i) => i.kind === "tool" && i.runId === runId)) return;
    await fromTrace(agent, runId);
  }

  async function fromTrace(agent: string, runId: string): Promise<boolean> {
    try {
      const { trace } = await api.getRun(agent, runId);
      store.setChat((s) => (s.agent === agent ? { ...s, items: restoreFromTrace(s.items, runId, trace) } : s));
      return true;
    } catch {
      // The stream (or the reply) already showed what happened; the trace's detail is a nicety.
      return false;
    }
  }

  /**
   * Stored history keeps only questions and replies: the tool calls of the newest runs on screen
   * come back from their traces, after the messages have rendered, each run fetched once.
   */
  async function restoreRuns(agent: string): Promise<void> {
    const replies = chat().items.flatMap((i) =>
      i.kind === "message" && i.role === "assistant" && i.runId && !i.streaming ? [i.runId] : [],
    );
    const runIds = [...new Set(replies)].slice(-RESTORED_RUNS).filter((id) => !shown.has(id));
    for (const id of runIds) shown.add(id);
    await Promise.all(
      runIds.map(async (id) => {
        if (!(await fromTrace(agent, id))) shown.delete(id);
      }),
    );
  }

  async function loadSessions(agent: string): Promise<void> {
    store.setChat((c) => ({ ...c, sessions: { status: "loading" } }));
    try {
      const { sessions } = await api.listSessions(agent);
      store.setChat((c) => (c.agent === agent ? { ...c, sessions: { status: "ready", data: sessions } } : c));
    } catch (error) {
      store.setChat((c) =>
        c.agent === agent ? { ...c, sessions: { status: "error", error: describeError(error) } } : c,
      );
    }
  }

  /**
   * Fetches history newest-first until it reaches the last message already on screen, then
   * merges by id: whatever the socket missed appears once, and nothing is duplicated.
   */
  function catchUp(): Promise<void> {
    catchingUp ??= (async () => {
      const c = chat();
      const agent = c.agent;
      if (!agent) return;
      const known = lastSeenId(c.items);
      const collected: StoredMessage[] = [];
      try {
        let cursor: string | undefined;
        for (let page = 0; page < 10; page++) {
          const res = await api.listMessages(agent, { session: c.sessionId ?? undefined, cursor, limit: 50 });
          collected.push(...res.messages);
          if (!known || !res.nextCursor || res.messages.some((m) => m.id === known)) break;
          cursor = res.nextCursor;
        }
        store.setChat((s) =>
          s.agent !== agent
            ? s
            : {
                ...s,
                sessionId: s.sessionId ?? collected[0]?.sessionId ?? null,
                items: mergeHistory(s.items, collected),
                history: { status: "ready", data: null },
              },
        );
        void restoreRuns(agent);
        void viewer.show(agent, chat().items);
      } catch (error) {
        store.setChat((s) =>
          s.agent !== agent ? s : { ...s, history: { status: "error", error: describeError(error) } },
        );
      }
    })().finally(() => {
      catchingUp = null;
    });
    return catchingUp;
  }

  async function loadApprovals(): Promise<void> {
    const agent = chat().agent;
    if (!agent) return;
    try {
      const { approvals } = await api.listApprovals();
      store.setChat((c) => (c.agent === agent ? { ...c, approvals: approvals.filter((a) => a.agent === agent) } : c));
    } catch {
      // Approvals are an extra on the chat screen; the approvals page reports its own errors.
    }
  }

  /**
   * Sends a message: its pictures are uploaded first (`uploaded` are ids stored already, from a
   * retry), then the text with their ids. A refused picture hands the whole message back to the
   * composer with the server's reason; a dropped connection queues it, pictures included.
   */
  async function send(content: string, pictures: Picture[] = [], uploaded: string[] = [], clientId = "") {
    const c = chat();
    const agent = c.agent;
    if (!agent || (!content.trim() && pictures.length === 0 && uploaded.length === 0)) return;
    if (!store.get().online) return queue(content, pictures);
    // Also the message's client id: a retry of this send (the outbox's, the page's) is the same message.
    const localId = clientId || deps.randomId();
    let runId: string | null = null;
    const onDevice = localImages(pictures);
    const shownImages = [...uploaded.map((id) => ({ id })), ...onDevice];
    store.setChat((s) => ({
      ...s,
      busy: true,
      error: null,
      notice: null,
      runStatus: "running",
      items: addLocalMessage(s.items, localId, content, deps.now(), false, shownImages),
    }));
    abort = new AbortController();
    const images = [...uploaded];
    try {
      if (pictures.length) {
        const up = await uploadPictures(api, agent, pictures);
        if (up.failed) {
          store.setChat((s) =>
            s.agent !== agent ? s : { ...s, busy: false, runStatus: null, items: removeLocal(s.items, localId) },
          );
          if (isNetworkError(up.failed.error)) return await queue(content, pictures);
          const name = pictures[up.failed.index]?.name ?? "";
          store.setChat((s) =>
            s.agent !== agent
              ? s
              : {
                  ...s,
                  error: { text: describeUploadError(up.failed!.index, pictures.length, name, up.failed!.error) },
                  returned: { key: deps.now(), content, pictures },
                },
          );
          return;
        }
        for (const p of pictures) if (p.id) viewer.keep(p.id, p.blob);
        images.push(...up.ids);
      }
      const input = {
        ...(content.trim() ? { content } : {}),
        session: c.sessionId ?? undefined,
        clientId: localId,
        ...(images.length ? { images } : {}),
      };
      await api.streamMessage(
        agent,
        input,
        (event) => {
          if (event.type === "run") {
            runId = event.runId;
            ownRuns.add(event.runId);
            shown.add(event.runId);
          }
          store.setChat((s) => {
            if (s.agent !== agent) return s;
            const next = { ...s, items: applyRunEvent(s.items, event, { runId, localId }) };
            if (event.type === "run") next.sessionId = event.sessionId;
            if (event.type === "status" || event.type === "done") next.runStatus = event.status;
            if (event.type === "error")
              next.error = { text: friendlyRunError(event.message), retryContent: content, retryImages: images };
            return next;
          });
        },
        abort.signal,
      );
      store.setChat((s) => (s.agent === agent ? { ...s, busy: false } : s));
      if (chat().runStatus === "waiting_approval") {
        // The stream ends while the run waits for a person; its continuation arrives over the socket.
        if (runId) ownRuns.delete(runId);
        await loadApprovals();
      }
      await catchUp();
      if (runId) await enrich(agent, runId);
    } catch (error) {
      if ((error as Error)?.name === "AbortError") return;
      store.setChat((s) =>
        s.agent !== agent ? s : { ...s, busy: false, runStatus: null, items: removeLocal(s.items, localId) },
      );
      // The server may have taken it before the connection dropped: queued under the same id, it is sent once.
      if (isNetworkError(error) && runId === null) return queue(content, pictures, localId);
      // A retry after a lost answer asks for the same message again; after a refusal it is a new one.
      const retry = { retryContent: content, retryImages: images, retryClientId: isNetworkError(error) ? localId : "" };
      store.setChat((s) => (s.agent !== agent ? s : { ...s, error: { text: describeError(error, "send"), ...retry } }));
      if (runId) await catchUp();
    } finally {
      releaseImages(onDevice);
    }
  }

  /** Keeps a message for later, its pictures' bytes too (IndexedDB holds Blobs). */
  async function queue(content: string, pictures: Picture[] = [], id?: string): Promise<void> {
    const c = chat();
    const token = deps.getToken();
    if (!c.agent || !token) return;
    const kept: QueuedPicture[] = pictures.map(({ blob, type, name, width, height, id }) => ({
      blob,
      type,
      name,
      ...(width ? { width, height } : {}),
      ...(id ? { id } : {}),
    }));
    const queued = await deps.outbox.add({
      agent: c.agent,
      project: store.get().project,
      session: c.sessionId ?? undefined,
      content,
      token,
      ...(id ? { id } : {}),
      ...(kept.length ? { pictures: kept } : {}),
    });
    const images = localImages(kept);
    queuedImages.set(queued.id, images);
    store.setChat((s) => ({
      ...s,
      notice: OFFLINE_QUEUED,
      items: addLocalMessage(s.items, queued.id, content, queued.createdAt, true, images),
    }));
    deps.requestBackgroundSync();
  }

  async function showQueued(): Promise<void> {
    const agent = chat().agent;
    const queued = (await deps.outbox.list().catch(() => [] as QueuedMessage[])).filter(
      (m) => m.agent === agent && m.project === store.get().project,
    );
    store.setChat((s) => {
      let items = s.items;
      for (const m of queued) {
        if (items.some((i) => i.key === `local:${m.id}`)) continue;
        const images = queuedImages.get(m.id) ?? localImages(m.pictures ?? []);
        queuedImages.set(m.id, images);
        items = addLocalMessage(items, m.id, m.content, m.createdAt, true, images);
      }
      return { ...s, items };
    });
  }

  /** Sends what was queued offline, oldest first. Safe to call often: a claim stops double sends. */
  async function flushOutbox(): Promise<void> {
    live?.nudge();
    try {
      await deps.outbox.drain(async (m) => {
        const pictures = m.pictures ?? [];
        const up = await uploadPictures(api, m.agent, pictures);
        if (up.failed) {
          if (isNetworkError(up.failed.error)) throw up.failed.error;
          const name = pictures[up.failed.index]?.name ?? "";
          throw new RefusedQueued(m, describeUploadError(up.failed.index, pictures.length, name, up.failed.error));
        }
        const res = await api.sendMessage(m.agent, {
          ...(m.content.trim() ? { content: m.content } : {}),
          session: m.session,
          clientId: m.id,
          ...(up.ids.length ? { images: up.ids } : {}),
        });
        for (const p of pictures) if (p.id) viewer.keep(p.id, p.blob);
        sent(m.id, m.agent, [...(res.userMessage ? [res.userMessage] : []), ...(res.reply ? [res.reply] : [])]);
      });
      store.setChat((s) => ({ ...s, notice: null }));
    } catch (error) {
      if (error instanceof RefusedQueued) {
        await handBack(error);
        // The refused one is out of the outbox now; the messages queued after it go on.
        return flushOutbox();
      } else if (!isNetworkError(error))
        store.setChat((s) => ({ ...s, error: { text: describeError(error, "send") } }));
    }
    await catchUp();
  }

  /**
   * A queued message with a picture the server refuses leaves the outbox (it would block the ones
   * after it) and goes back into the composer; with another agent's chat open, its text is quoted
   * in the error so nothing typed is lost.
   */
  async function handBack({ queued: m, text }: RefusedQueued): Promise<void> {
    await deps.outbox.remove(m.id);
    releaseImages(queuedImages.get(m.id) ?? []);
    queuedImages.delete(m.id);
    const pictures = (m.pictures ?? []).map((p, n) => ({ ...p, key: `${m.id}:${n}` }));
    store.setChat((s) =>
      s.agent !== m.agent
        ? {
            ...s,
            error: {
              text: `A message queued for ${m.agent} was not sent. ${text.replace(/ Your message is back in the box below\.$/, "")}${m.content ? ` It said: "${m.content}"` : ""}`,
            },
          }
        : {
            ...s,
            items: removeLocal(s.items, m.id),
            error: { text },
            returned: { key: deps.now(), content: m.content, pictures },
          },
    );
  }

  /** Puts text and pictures in the open chat's composer, unsent (something shared into the app). */
  function prefill(content: string, pictures: Picture[]): void {
    store.setChat((s) => ({ ...s, returned: { key: deps.now(), content, pictures } }));
  }

  /** A queued message went out (from this page or from the service worker). */
  function sent(id: string, agent: string, stored: StoredMessage[] = []): void {
    releaseImages(queuedImages.get(id) ?? []);
    queuedImages.delete(id);
    store.setChat((s) => (s.agent !== agent ? s : { ...s, items: mergeHistory(removeLocal(s.items, id), stored) }));
    if (stored.length === 0 && chat().agent === agent) void catchUp();
  }

  async function retry(): Promise<void> {
    const error = chat().error;
    if (error?.retryContent !== undefined)
      await send(error.retryContent, [], error.retryImages ?? [], error.retryClientId);
  }

  async function newSession(): Promise<string | null> {
    const agent = chat().agent;
    if (!agent) return null;
    try {
      const session = await api.createSession(agent);
      await loadSessions(agent);
      return session.id;
    } catch (error) {
      store.setChat((s) => ({ ...s, error: { text: describeError(error) } }));
      return null;
    }
  }

  return {
    open,
    close,
    send,
    retry,
    catchUp,
    flushOutbox,
    sent,
    prefill,
    newSession,
    loadApprovals,
    /** After a decision on one of this chat's runs: the reply and the decision itself. */
    refreshRun: async (runId: string) => {
      const agent = chat().agent;
      await catchUp();
      if (agent) await enrich(agent, runId);
    },
    dismiss: () => store.setChat((s) => ({ ...s, error: null, notice: null })),
    nudge: () => live?.nudge(),
  };
}

export type ChatFeature = ReturnType<typeof makeChatFeature>;

function friendlyRunError(message: string): string {
  return `The agent could not finish this reply: ${message}`;
}
