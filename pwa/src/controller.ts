import { makeApi, type Agent, type Api, type Approval } from "./api";
import { makeChatFeature } from "./controller-chat";
import { makeDetailFeature } from "./controller-detail";
import { makePeopleFeature } from "./controller-people";
import { makeWorkFeature } from "./controller-work";
import { describeError } from "./errors";
import type { LiveConnection, LiveOptions } from "./live";
import type { Outbox } from "./outbox";
import { tokenWorksIn } from "./project-link";
import { parseHash, toHash, type Route } from "./router";
import { emptyChat, emptyPeople, emptyWork, makeStore, type AppState, type Store, type Theme } from "./state";
import type { Loadable } from "./types";
import type { QuestionLinks } from "./work-attention";

export interface ControllerDeps {
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  outbox: Outbox;
  fetch?: typeof fetch;
  now?: () => number;
  randomId?: () => string;
  connectLive?: ((options: LiveOptions) => LiveConnection) | null;
  location?: { host: string; protocol: string };
  online?: boolean;
  navigate?: (hash: string) => void;
  /** Goes to a route without keeping the current one in history (a used sign-in link); defaults to navigate. */
  replace?: (hash: string) => void;
  /** What this device is (describeDevice of the user agent), told to the server when it opens a sign-in link. */
  device?: string;
  requestBackgroundSync?: () => void;
  /** Whether the page is on screen (the task board polls only then). */
  visible?: () => boolean;
}

const KEYS = {
  token: "pantheon.token",
  project: "pantheon.project",
  theme: "pantheon.theme",
  person: "pantheon.person",
} as const;

/**
 * The one place that talks to the API. Components read `getState()` and call these actions in
 * response to their events; they never change state themselves.
 *
 * @example
 * const controller = makeController({ storage: localStorage, outbox: makeOutbox({ indexedDB, now: Date.now }) });
 * controller.subscribe((state) => (app.state = state));
 * controller.route(location.hash);
 */
export function makeController(deps: ControllerDeps) {
  const now = deps.now ?? Date.now;
  const getToken = () => deps.storage.getItem(KEYS.token);
  const store: Store = makeStore({
    signedIn: getToken() !== null,
    project: deps.storage.getItem(KEYS.project) ?? "default",
    route: { view: "agents" },
    online: deps.online ?? true,
    theme: (deps.storage.getItem(KEYS.theme) as Theme | null) ?? "system",
    signIn: { busy: false, error: null },
    person: deps.storage.getItem(KEYS.person),
    join: { busy: false, error: null },
    people: emptyPeople(),
    agents: { status: "idle" },
    createAgent: { busy: false, error: null, created: null },
    detail: null,
    trace: { status: "idle" },
    conversation: { status: "idle" },
    workflow: { status: "idle" },
    context: { status: "idle" },
    tools: { status: "idle" },
    toolRun: null,
    approvals: { status: "idle" },
    deciding: [],
    decideError: null,
    chat: emptyChat(),
    work: emptyWork(),
  });
  const api: Api = makeApi({ getToken, getProject: () => store.get().project, fetch: deps.fetch });
  const chat = makeChatFeature({
    api,
    store,
    outbox: deps.outbox,
    now,
    getToken,
    randomId: deps.randomId ?? (() => crypto.randomUUID()),
    connectLive: deps.connectLive ?? null,
    location: deps.location ?? { host: "localhost", protocol: "http:" },
    requestBackgroundSync: deps.requestBackgroundSync ?? (() => {}),
  });
  const detail = makeDetailFeature({ api, store });
  const work = makeWorkFeature({
    api,
    store,
    now,
    visible: deps.visible ?? (() => true),
    randomId: deps.randomId ?? (() => crypto.randomUUID()),
    // Downloads are bytes: the same token and project as every call, the answer read raw.
    fetchFile: (path) => {
      const token = getToken();
      return (deps.fetch ?? globalThis.fetch.bind(globalThis))(path, {
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "x-pantheon-project": store.get().project },
      });
    },
  });
  const set = store.set;
  const replace = deps.replace ?? deps.navigate ?? (() => {});
  const people = makePeopleFeature({
    api,
    store,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    device: deps.device ?? "a browser",
    async signInWith(token, project, person) {
      chat.close();
      deps.storage.setItem(KEYS.token, token);
      deps.storage.setItem(KEYS.project, project);
      deps.storage.setItem(KEYS.person, person);
      set((s) => ({
        ...s,
        signedIn: true,
        project,
        person,
        signIn: { busy: false, error: null },
        agents: { status: "idle" },
        approvals: { status: "idle" },
        chat: emptyChat(),
        work: emptyWork(),
        people: emptyPeople(),
      }));
      // The link is spent: leave it out of history, so Back does not open it again.
      replace(toHash({ view: "agents" }));
    },
  });

  /** Loads into one slot of the state, keeping the previous data visible while it refreshes. */
  async function load<K extends "agents" | "context" | "tools" | "approvals" | "workflow">(
    key: K,
    fetcher: () => Promise<AppState[K] extends Loadable<infer T> ? T : never>,
  ): Promise<void> {
    set((s) => ({
      ...s,
      [key]: { status: "loading", data: "data" in s[key] ? (s[key] as { data?: unknown }).data : undefined },
    }));
    try {
      const data = await fetcher();
      set((s) => ({ ...s, [key]: { status: "ready", data } }));
    } catch (error) {
      set((s) => ({
        ...s,
        [key]: { status: "error", error: describeError(error), data: (s[key] as { data?: unknown }).data },
      }));
    }
  }

  /** A workflow's graph, read again every 1.5 s while it runs and is on screen. */
  async function followWorkflow(route: Extract<Route, { view: "workflow" }>): Promise<void> {
    await load("workflow", () => api.getWorkflow(route.agent, route.id));
    const shown = store.get();
    const stillHere = (s: typeof shown) =>
      s.route.view === "workflow" && s.route.id === route.id && s.route.agent === route.agent;
    if (shown.workflow.status === "ready" && shown.workflow.data?.status === "running" && stillHere(shown)) {
      setTimeout(() => void (stillHere(store.get()) && followWorkflow(route)), 1500);
    }
  }

  async function onRoute(route: Route): Promise<void> {
    set((s) => ({ ...s, route }));
    // A sign-in link signs a device in at once; a device signed in already asks first (the view's button).
    if (route.view === "join") {
      if (!store.get().signedIn) await people.join(route.code, route.project);
      return;
    }
    if (!store.get().signedIn) return;
    if (route.view !== "chat") chat.close();
    work.stopPolling();
    switch (route.view) {
      case "agents":
        return load("agents", async () => (await api.listAgents()).agents);
      case "approvals":
        return load("approvals", async () => (await api.listApprovals()).approvals);
      case "agent":
        return detail.load(route.agent);
      case "conversation":
        return detail.loadConversation(route.id);
      case "workflow":
        return followWorkflow(route);
      case "chat":
        return chat.open(route.agent, route.session);
      case "trace":
        return detail.loadTrace(route.agent, route.runId);
      case "context":
        if (!route.q) return set((s) => ({ ...s, context: { status: "idle" } }));
        return load("context", () => api.getContext(route.agent, route.q!, route.max));
      case "tools":
        set((s) => ({ ...s, toolRun: null }));
        return load("tools", async () => (await api.listTools(route.agent)).tools);
      case "features":
      case "feature":
      case "plan":
      case "task":
      case "commits":
      case "commit":
      case "files":
        return work.open(route);
      case "people":
        return people.load();
      case "share":
        return load("agents", async () => (await api.listAgents()).agents);
    }
  }

  const navigate = (route: Route) => (deps.navigate ?? (() => {}))(toHash(route));

  return {
    getState: store.get,
    subscribe: store.subscribe,
    /** Follow a `location.hash` change. */
    route: (hash: string) => onRoute(parseHash(hash)),
    navigate,

    async signIn(token: string, project = "default"): Promise<boolean> {
      set((s) => ({ ...s, project: project || "default", signIn: { busy: true, error: null } }));
      try {
        const { agents } = await makeApi({
          getToken: () => token,
          getProject: () => store.get().project,
          fetch: deps.fetch,
        }).listAgents();
        deps.storage.setItem(KEYS.token, token);
        deps.storage.setItem(KEYS.project, store.get().project);
        // A pasted token is nobody's in particular: the person is whoever the token's name says.
        deps.storage.removeItem(KEYS.person);
        set((s) => ({
          ...s,
          signedIn: true,
          person: null,
          signIn: { busy: false, error: null },
          agents: { status: "ready", data: agents },
        }));
        await onRoute(store.get().route);
        return true;
      } catch (error) {
        set((s) => ({ ...s, signIn: { busy: false, error: describeError(error, "sign-in") } }));
        return false;
      }
    },

    /**
     * A link into another project (a notice's `?project=`): this device switches to it when its token
     * is good there (a deployment admin's, or a person's of that project), and stays where it is when
     * not, answering false. The per-project views start over in the new project.
     */
    async openProject(project: string): Promise<boolean> {
      const current = store.get();
      if (!project || project === current.project) return true;
      if (
        !current.signedIn ||
        !(await tokenWorksIn(project, { getToken, ...(deps.fetch ? { fetch: deps.fetch } : {}) }))
      )
        return false;
      chat.close();
      work.stopPolling();
      deps.storage.setItem(KEYS.project, project);
      set((s) => ({
        ...s,
        project,
        agents: { status: "idle" },
        detail: null,
        approvals: { status: "idle" },
        chat: emptyChat(),
        work: emptyWork(),
        people: emptyPeople(),
      }));
      return true;
    },

    signOut(): void {
      chat.close();
      deps.storage.removeItem(KEYS.token);
      deps.storage.removeItem(KEYS.person);
      work.stopPolling();
      set((s) => ({
        ...s,
        signedIn: false,
        person: null,
        people: emptyPeople(),
        agents: { status: "idle" },
        detail: null,
        approvals: { status: "idle" },
        chat: emptyChat(),
        work: emptyWork(),
      }));
    },

    setOnline(online: boolean): void {
      set((s) => ({ ...s, online }));
      if (online && store.get().signedIn) void chat.flushOutbox();
    },

    setTheme(theme: Theme): void {
      deps.storage.setItem(KEYS.theme, theme);
      set((s) => ({ ...s, theme }));
    },

    async createAgent(input: {
      name: string;
      description?: string;
      systemPrompt?: string;
      model?: Agent["model"];
    }): Promise<boolean> {
      set((s) => ({ ...s, createAgent: { busy: true, error: null, created: null } }));
      try {
        const agent = await api.createAgent(input);
        set((s) => ({ ...s, createAgent: { busy: false, error: null, created: agent.name } }));
        await load("agents", async () => (await api.listAgents()).agents);
        return true;
      } catch (error) {
        set((s) => ({
          ...s,
          createAgent: { busy: false, error: describeError(error, "create-agent"), created: null },
        }));
        return false;
      }
    },

    async decide(
      approval: Pick<Approval, "agent" | "runId" | "callId">,
      decision: "approve" | "reject",
    ): Promise<void> {
      // Only a run's call is decided; an entry without a run (a planner's question) is answered.
      const runId = approval.runId;
      if (!runId) return;
      set((s) => ({ ...s, deciding: [...s.deciding, approval.callId], decideError: null }));
      try {
        await api.decide(approval.agent, runId, { decision, callId: approval.callId });
        const drop = (list: Approval[]) =>
          list.filter((a) => !(a.callId === approval.callId && a.runId === approval.runId));
        set((s) => ({
          ...s,
          approvals: s.approvals.status === "ready" ? { status: "ready", data: drop(s.approvals.data) } : s.approvals,
          chat: { ...s.chat, approvals: drop(s.chat.approvals) },
        }));
        if (store.get().chat.agent === approval.agent) void chat.refreshRun(runId);
      } catch (error) {
        set((s) => ({ ...s, decideError: describeError(error, "approve") }));
      } finally {
        set((s) => ({ ...s, deciding: s.deciding.filter((id) => id !== approval.callId) }));
      }
    },

    /**
     * Answers a question in the inbox: a blocked task's (`task.block`: the worker's run goes on with
     * it) or the planner's before it writes the plan (clarify: `plan.ask`, its call id the question's).
     */
    async answer(
      approval: Pick<Approval, "agent" | "runId" | "callId"> & QuestionLinks & { tool?: string },
      text: string,
    ): Promise<void> {
      const same = (a: Approval) => a.callId === approval.callId && a.runId === approval.runId;
      set((s) => ({ ...s, deciding: [...s.deciding, approval.callId], decideError: null }));
      try {
        if (approval.feature && approval.tool === "plan.ask")
          await work.answerQuestion(approval.feature, approval.callId, text);
        else {
          // The server's own links name the task (its key survives a re-sync that renumbers); a
          // worker's name is only a hint, so without links the boards say which task it works.
          const named = approval.taskKey ?? approval.task;
          const { feature, task } =
            approval.feature && named !== undefined && named !== null
              ? { feature: approval.feature, task: named }
              : await work.findTaskOf(approval.agent);
          await api.answerTask(feature, task, text);
        }
        set((s) => ({
          ...s,
          approvals:
            s.approvals.status === "ready"
              ? { status: "ready", data: s.approvals.data.filter((a) => !same(a)) }
              : s.approvals,
        }));
      } catch (error) {
        set((s) => ({ ...s, decideError: describeError(error, "approve") }));
      } finally {
        set((s) => ({ ...s, deciding: s.deciding.filter((id) => id !== approval.callId) }));
      }
    },

    /** Answers an MCP server's question from the inbox (accept with the form's values, or decline). */
    async answerMcp(
      question: Pick<Approval, "agent" | "runId" | "callId">,
      answer: { action: "accept"; content: Record<string, string | number | boolean> } | { action: "decline" },
    ): Promise<void> {
      set((s) => ({ ...s, deciding: [...s.deciding, question.callId], decideError: null }));
      try {
        await api.answerMcpQuestion(question.agent, question.callId, answer);
        set((s) => ({
          ...s,
          approvals:
            s.approvals.status === "ready"
              ? { status: "ready", data: s.approvals.data.filter((a) => a.callId !== question.callId) }
              : s.approvals,
        }));
        if (question.runId && store.get().chat.agent === question.agent) void chat.refreshRun(question.runId);
      } catch (error) {
        set((s) => ({ ...s, decideError: describeError(error, "approve") }));
      } finally {
        set((s) => ({ ...s, deciding: s.deciding.filter((id) => id !== question.callId) }));
      }
    },

    async invokeTool(agent: string, tool: string, args: Record<string, unknown>): Promise<void> {
      set((s) => ({ ...s, toolRun: { tool, busy: true, result: null, error: null } }));
      try {
        const result = await api.invokeTool(agent, tool, args);
        set((s) => ({ ...s, toolRun: { tool, busy: false, result, error: null } }));
      } catch (error) {
        set((s) => ({ ...s, toolRun: { tool, busy: false, result: null, error: describeError(error, "invoke") } }));
      }
    },

    /** Pauses or resumes one behavior of an agent's script. */
    setSchedulePaused: (agent: string, behavior: string, paused: boolean) => detail.setPaused(agent, behavior, paused),

    reload: () => onRoute(store.get().route),
    people,
    chat,
    work,
  };
}

export type Controller = ReturnType<typeof makeController>;
