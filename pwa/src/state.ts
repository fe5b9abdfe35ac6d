import type { ChatItem } from "./chat-state";
import type { LiveStatus } from "./live";
import type { Route } from "./router";
import type {
  Agent,
  Approval,
  BusCounts,
  ContextResult,
  Conversation,
  CreatedInvite,
  EvalRunSummary,
  FeatureReport,
  FeatureSummary,
  FeatureTask,
  InviteInfo,
  LiveState,
  Plan,
  RunDetail,
  RunSummary,
  WorkflowView,
  Schedule,
  ScriptInfo,
  Session,
  TaskDetail,
  TaskReport,
  TokenInfo,
  ToolInvokeResult,
  ToolSpec,
} from "./api";
import type { Branches, CommitFileDiff, CommitInfo, FileContent, FileEntry } from "./api-work";
import type { Picture } from "./pictures";
import type { Loadable } from "./types";

export type Theme = "system" | "light" | "dark";

export interface ChatState {
  agent: string | null;
  sessionId: string | null;
  sessions: Loadable<Session[]>;
  items: ChatItem[];
  history: Loadable<null>;
  /** A reply is streaming for a message sent from this page. */
  busy: boolean;
  runStatus: string | null;
  approvals: Approval[];
  error: { text: string; retryContent?: string; retryImages?: string[]; retryClientId?: string } | null;
  notice: string | null;
  live: LiveStatus;
  agentState: LiveState | null;
  /** Blob URLs of stored pictures fetched with the token, by image id ("" when it could not load). */
  imageUrls: Record<string, string>;
  /** A message whose pictures did not upload, handed back to the composer (`key` changes each time). */
  returned: { key: number; content: string; pictures: Picture[] } | null;
}

export interface AppState {
  signedIn: boolean;
  project: string;
  route: Route;
  online: boolean;
  theme: Theme;
  signIn: { busy: boolean; error: string | null };
  /** The invited person this device is signed in as (from their sign-in link); null for a pasted token. */
  person: string | null;
  /** Opening a sign-in link on this device. */
  join: { busy: boolean; error: string | null };
  people: PeopleState;
  agents: Loadable<Agent[]>;
  createAgent: { busy: boolean; error: string | null; created: string | null };
  detail: AgentDetail | null;
  /** The run on screen; `conversation` is its delegation chain's id, when it has one. */
  trace: Loadable<RunDetail & { conversation?: string | null }>;
  conversation: Loadable<Conversation>;
  workflow: Loadable<WorkflowView>;
  context: Loadable<ContextResult>;
  tools: Loadable<ToolSpec[]>;
  toolRun: { tool: string; busy: boolean; result: ToolInvokeResult | null; error: string | null } | null;
  approvals: Loadable<Approval[]>;
  /** callIds with a decision on its way. */
  deciding: string[];
  decideError: string | null;
  chat: ChatState;
  work: WorkState;
}

/** An admin's people and devices: tokens (whose device each is), invites waiting, the invite just made. */
export interface PeopleState {
  tokens: Loadable<TokenInfo[]>;
  invites: Loadable<InviteInfo[]>;
  /** The invite just made: its link (and code) are shown once. */
  created: CreatedInvite | null;
  /** The change on its way: "invite", "revoke:<id>", "withdraw:<id>". */
  busy: string | null;
  error: string | null;
}

export function emptyPeople(): PeopleState {
  return { tokens: { status: "idle" }, invites: { status: "idle" }, created: null, busy: null, error: null };
}

/** The Work area: features, one feature's board and plan, one task. */
export interface WorkState {
  features: Loadable<FeatureSummary[]>;
  /** The feature on screen (its page, plan or a task of it). */
  feature: Loadable<FeatureSummary>;
  tasks: Loadable<FeatureTask[]>;
  plan: Loadable<Plan>;
  /** The earlier plan version the one on screen is compared with (its text and its comments). */
  compare: Loadable<Plan>;
  /** Approve was asked for a version with open comments: the version waiting for a second "yes". */
  confirmApprove: number | null;
  task: Loadable<TaskDetail & { report: TaskReport | null }>;
  /** The feature's report (its cost and tokens), read with its page; null when it could not be read. */
  report: FeatureReport | null;
  /**
   * Which of the newer Work routes this server has: the git history (commits, branches) and the
   * unattended run (run-all, pause). Null while unknown; a control shows only once its route is known.
   */
  has: { repo: boolean | null; flow: boolean | null };
  /** The feature's commits on a ref, and its branches (null when the server keeps no branches). */
  commits: Loadable<{ commits: CommitInfo[]; branches: Branches | null }>;
  commit: Loadable<{ sha: string; files: CommitFileDiff[]; info: CommitInfo | null }>;
  files: Loadable<FileEntry[]>;
  file: Loadable<FileContent>;
  /** What this token may do, learnt once from a probe; null while unknown (actions are offered, a 403 explains). */
  scope: "chat" | "approve" | "admin" | null;
  /** The action on its way: "approve", "comment", "start", "start:<task>", "commit", "discard", "run-all", "pause", "resume". */
  busy: string | null;
  error: string | null;
  /** When the board or task was last refreshed (ms), shown next to the live marker. */
  refreshedAt: number | null;
  /** What the Work page's import form offers (the project's secrets by name, the agents that plan); null for a non-admin. */
  importOptions: { secrets: string[]; planners: string[] } | null;
  /** The last push, pull request or download: what went through, or (`failed`) why not, said beside its buttons. */
  shipped: { action: string; message: string; url?: string; failed?: boolean } | null;
}

export function emptyWork(): WorkState {
  return {
    features: { status: "idle" },
    feature: { status: "idle" },
    tasks: { status: "idle" },
    plan: { status: "idle" },
    compare: { status: "idle" },
    confirmApprove: null,
    task: { status: "idle" },
    report: null,
    has: { repo: null, flow: null },
    commits: { status: "idle" },
    commit: { status: "idle" },
    files: { status: "idle" },
    file: { status: "idle" },
    scope: null,
    busy: null,
    error: null,
    refreshedAt: null,
    importOptions: null,
    shipped: null,
  };
}

export interface AgentDetail {
  agent: string;
  info: Loadable<Agent>;
  /** Null when the agent has no script (it only chats). */
  script: Loadable<ScriptInfo | null>;
  schedules: Loadable<Schedule[]>;
  runs: Loadable<RunSummary[]>;
  /** Its eval runs, newest first. */
  evals: Loadable<EvalRunSummary[]>;
  /** Bus messages waiting for this agent (zeros when none). */
  bus: Loadable<Omit<BusCounts, "agent">>;
  /** runId → the delegation conversation it is part of. */
  conversations: Record<string, string>;
  /** Behaviors with a pause or resume on its way. */
  pausing: string[];
  scheduleError: string | null;
}

export function emptyChat(): ChatState {
  return {
    agent: null,
    sessionId: null,
    sessions: { status: "idle" },
    items: [],
    history: { status: "idle" },
    busy: false,
    runStatus: null,
    approvals: [],
    error: null,
    notice: null,
    live: "off",
    agentState: null,
    imageUrls: {},
    returned: null,
  };
}

/** A tiny observable store: state is replaced, never mutated, so Lit sees every change. */
export interface Store {
  get(): AppState;
  set(update: (s: AppState) => AppState): void;
  setChat(update: (c: ChatState) => ChatState): void;
  subscribe(listener: (s: AppState) => void): () => void;
}

export function makeStore(initial: AppState): Store {
  let state = initial;
  const listeners = new Set<(s: AppState) => void>();
  const store: Store = {
    get: () => state,
    set(update) {
      state = update(state);
      for (const l of listeners) l(state);
    },
    setChat(update) {
      store.set((s) => ({ ...s, chat: update(s.chat) }));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return store;
}
