import type { Api, Plan } from "./api";
import { makeWorkApi } from "./api-work";
import { makeRepoViews } from "./controller-work-repo";
import { makeShipping } from "./controller-work-ship";
import { describeError, isApiError } from "./errors";
import { openComments } from "./plan-compare";
import type { Route } from "./router";
import type { Store, WorkState } from "./state";
import type { Loadable } from "./types";

export interface WorkDeps {
  api: Api;
  store: Store;
  now: () => number;
  /** Whether the page is on screen: the board is polled only then. */
  visible: () => boolean;
  randomId: () => string;
  /** How often the board and a task page refresh while visible. */
  pollMs?: number;
  /** A GET with the person's token and project, answered raw (downloads). */
  fetchFile?: (path: string) => Promise<Response>;
  /** Hands a downloaded file to the browser. */
  save?: (blob: Blob, filename: string) => void;
}

/** Saves a file the way a link with `download` does. */
function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement("a"), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Refresh every few seconds: a task's status moves when its worker's run does, not faster. */
const POLL_MS = 3000;

/** A worker agent is named `<feature>-task-<n>` (core/work's workerNameOf). */
const WORKER_NAME = /^(.+)-task-(\d+)$/;

/** Whether the server runs features unattended: its summary then says whether the feature is paused. */
function flowOf(summary: Loadable<unknown>): { flow?: boolean } {
  return summary.status === "ready"
    ? { flow: typeof summary.data === "object" && summary.data !== null && "paused" in summary.data }
    : {};
}

async function settle<T>(promise: Promise<T>): Promise<Loadable<T>> {
  try {
    return { status: "ready", data: await promise };
  } catch (error) {
    return { status: "error", error: describeError(error) };
  }
}

/**
 * The Work area of the controller: features, a feature's live board, its plan (comments, versions,
 * approval), a task (spec, report, diff, start/commit/discard) and answering a blocked task's
 * question from the approvals inbox. The board and the task page poll their route while visible.
 */
export function makeWorkFeature({
  api,
  store,
  now,
  visible,
  randomId,
  pollMs = POLL_MS,
  fetchFile = (path) => fetch(path),
  save = saveFile,
}: WorkDeps) {
  const setWork = (update: (w: WorkState) => WorkState) => store.set((s) => ({ ...s, work: update(s.work) }));
  let timer: ReturnType<typeof setInterval> | null = null;
  /** The commit key per task until it succeeds: a commit retried after a dropped answer is applied once. */
  const commitKeys = new Map<string, string>();

  /** Learns the token's scope once: an admin-only read answers, or its 403 names the token's scope. */
  async function probeScope(): Promise<void> {
    if (store.get().work.scope) return;
    try {
      await api.getBus();
      setWork((w) => ({ ...w, scope: "admin" }));
    } catch (error) {
      const scope = isApiError(error) && error.status === 403 ? error.details?.scope : undefined;
      if (scope === "chat" || scope === "approve") setWork((w) => ({ ...w, scope }));
    }
  }

  const repo = makeRepoViews({ work: makeWorkApi(api), setWork, settle });
  const ship = makeShipping({ api, work: repo.work, store, setWork, fetchFile, save });

  const keep = <T>(l: Loadable<T>): Loadable<T> =>
    ({ status: "loading", ...("data" in l && l.data !== undefined ? { data: l.data } : {}) }) as Loadable<T>;

  async function loadFeature(feature: string): Promise<void> {
    const open = store.get().work.feature;
    const same = open.status !== "idle" && "data" in open && open.data?.name === feature;
    if (!same) setWork((w) => ({ ...w, feature: { status: "loading" }, tasks: { status: "loading" } }));
    const [summary, tasks, report] = await Promise.all([
      settle(api.getFeature(feature)),
      settle(api.listTasks(feature).then((r) => r.tasks)),
      api.getReport(feature).catch(() => null),
      repo.probe(feature),
    ]);
    setWork((w) => ({
      ...w,
      feature: summary,
      tasks,
      report,
      refreshedAt: now(),
      has: { ...w.has, ...flowOf(summary) },
    }));
  }

  /**
   * A plan version and the one it is compared with: the route's `compare`, else the version just
   * before it (its comments show beside the lines they were on, and count as open when unchanged).
   */
  async function loadPlan(feature: string, version?: number, compare?: number): Promise<void> {
    setWork((w) => ({ ...w, plan: keep(w.plan), compare: keep(w.compare), confirmApprove: null, error: null }));
    const [plan] = await Promise.all([settle(api.getPlan(feature, version)), loadFeatureSummary(feature)]);
    const earlier = compare ?? (plan.status === "ready" && plan.data.version > 1 ? plan.data.version - 1 : undefined);
    const previous: Loadable<Plan> =
      earlier && earlier !== (plan.status === "ready" ? plan.data.version : version)
        ? await settle(api.getPlan(feature, earlier))
        : { status: "idle" };
    setWork((w) => ({ ...w, plan, compare: previous }));
  }

  async function loadFeatureSummary(feature: string): Promise<void> {
    const summary = await settle(api.getFeature(feature));
    setWork((w) => ({ ...w, feature: summary }));
  }

  /** A task and its report; `first` also asks (once) whether the server keeps git history, not on every poll. */
  async function loadTask(feature: string, task: number | string, first = false): Promise<void> {
    const [detail, report] = await Promise.all([
      settle(api.getTask(feature, task)),
      api.getReport(feature).catch(() => null),
      first ? repo.probe(feature) : undefined,
    ]);
    const number = detail.status === "ready" ? detail.data.number : task;
    const mine = report?.tasks.find((t) => t.number === number) ?? null;
    setWork((w) => ({
      ...w,
      task:
        detail.status === "ready"
          ? { status: "ready", data: { ...detail.data, report: mine } }
          : detail.status === "error"
            ? { status: "error", error: detail.error }
            : w.task,
      refreshedAt: now(),
    }));
  }

  function stopPolling(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  function poll(refresh: () => Promise<void>): void {
    stopPolling();
    timer = setInterval(() => {
      if (visible()) void refresh();
    }, pollMs);
  }

  /** Follows a route into the Work area (and stops polling when it leaves). */
  async function open(route: Route): Promise<void> {
    stopPolling();
    switch (route.view) {
      case "features":
        setWork((w) => ({ ...w, features: keep(w.features), error: null }));
        return void (await Promise.all([
          settle(api.listFeatures().then((r) => r.features)).then((features) => setWork((w) => ({ ...w, features }))),
          probeScope().then(() => ship.loadImportOptions()),
        ]));
      case "feature":
        setWork((w) => ({ ...w, shipped: null, error: null }));
        poll(() => refreshTasks(route.feature));
        return void (await Promise.all([loadFeature(route.feature), probeScope()]));
      case "plan":
        return void (await Promise.all([loadPlan(route.feature, route.version, route.compare), probeScope()]));
      case "commits":
        return void (await Promise.all([
          repo.loadCommits(route.feature, route.ref),
          loadFeatureSummary(route.feature),
        ]));
      case "commit":
        return repo.loadCommit(route.feature, route.sha);
      case "files":
        return repo.loadFiles(route.feature, route.ref, route.path);
      case "task":
        setWork((w) => ({ ...w, task: { status: "loading" }, error: null }));
        poll(() => loadTask(route.feature, route.task));
        return void (await Promise.all([loadTask(route.feature, route.task, true), probeScope()]));
      default:
        return;
    }
  }

  /** One poll of the board: the tasks (and the summary's counts) as they are now. */
  async function refreshTasks(feature: string): Promise<void> {
    const [tasks, summary] = await Promise.all([
      api
        .listTasks(feature)
        .then((r) => r.tasks)
        .catch(() => null),
      api.getFeature(feature).catch(() => null),
    ]);
    setWork((w) => ({
      ...w,
      ...(tasks ? { tasks: { status: "ready" as const, data: tasks } } : {}),
      ...(summary
        ? {
            feature: { status: "ready" as const, data: summary },
            has: { ...w.has, ...flowOf({ status: "ready", data: summary }) },
          }
        : {}),
      refreshedAt: tasks ? now() : w.refreshedAt,
    }));
  }

  /**
   * How many comments are open on a version about to be approved: read from the page's plan and
   * its previous version when they are the ones on screen, else asked for (a tap may come before
   * the previous version has loaded; it must not skip the question).
   */
  async function openCommentsOf(feature: string, version: number): Promise<number> {
    const w = store.get().work;
    const shown = "data" in w.plan && w.plan.data?.version === version ? w.plan.data : null;
    const plan = shown ?? (await api.getPlan(feature, version));
    if (version === 1) return openComments(plan, null).length;
    const loaded = "data" in w.compare && w.compare.data?.version === version - 1 ? w.compare.data : null;
    const previous = loaded ?? (await api.getPlan(feature, version - 1).catch(() => null));
    return openComments(plan, previous).length;
  }

  /** Runs one action: busy while it goes, its failure explained; a 403 also teaches the token's scope. */
  async function act(name: string, action: () => Promise<void>): Promise<boolean> {
    setWork((w) => ({ ...w, busy: name, error: null }));
    try {
      await action();
      return true;
    } catch (error) {
      setWork((w) => ({
        ...w,
        error: describeError(error, name === "approve" || name === "answer" ? "approve" : "load"),
      }));
      return false;
    } finally {
      setWork((w) => ({ ...w, busy: null }));
    }
  }

  return {
    open,
    stopPolling,
    /** Import a repository, push, open a pull request, download (./controller-work-ship.ts). */
    importFeature: ship.importFeature,
    push: ship.push,
    pullRequest: ship.pullRequest,
    download: ship.download,

    comment: (feature: string, version: number, line: number, body: string) =>
      act("comment", async () => {
        await api.commentPlan(feature, { version, line, body });
        const plan = await api.getPlan(feature, version);
        setWork((w) => ({ ...w, plan: { status: "ready", data: plan } }));
      }),

    /**
     * Approves a version; one with open comments (its own, or the previous version's on lines it
     * kept as they were) first asks the person to confirm, and is approved on `confirmed`.
     */
    approve: async (feature: string, version: number, confirmed = false): Promise<boolean> => {
      const open = confirmed
        ? 0
        : await openCommentsOf(feature, version).catch((error: unknown) => {
            setWork((w) => ({ ...w, error: describeError(error) }));
            return -1;
          });
      if (open < 0) return false;
      if (open > 0) {
        setWork((x) => ({ ...x, confirmApprove: version }));
        return false;
      }
      setWork((x) => ({ ...x, confirmApprove: null }));
      return act("approve", async () => {
        await api.approvePlan(feature, version);
        // The plan as its page reads it (the approval answers fewer fields than the plan's route).
        const [plan] = await Promise.all([api.getPlan(feature, version), loadFeatureSummary(feature)]);
        setWork((w) => ({ ...w, plan: { status: "ready", data: plan } }));
      });
    },

    /** Closes the "approve with open comments?" question without approving. */
    cancelApprove: () => setWork((w) => ({ ...w, confirmApprove: null })),

    /** Starts a task from its page, or (`fromBoard`) from its card on the board. */
    start: (feature: string, task: number | string, fromBoard = false) =>
      act(fromBoard ? `start:${task}` : "start", async () => {
        await api.startTask(feature, task);
        await (fromBoard ? refreshTasks(feature) : loadTask(feature, task));
      }),

    /** Answers the planner's question about the plan (clarify), from the inbox. */
    answerQuestion: (feature: string, id: string, text: string) => repo.work.answerQuestion(feature, id, text),

    /** Commits a person's resolution of the task's merge conflict (the files as they should be). */
    resolve: (feature: string, task: number | string, files: { path: string; content: string }[]) =>
      act("resolve", async () => {
        await repo.work.resolve(feature, task, files);
        await loadTask(feature, task);
      }),

    /** Runs the feature's tasks one after another, unattended (stops on a block or a failure). */
    runAll: (feature: string) =>
      act("run-all", async () => {
        await repo.work.runAll(feature);
        await refreshTasks(feature);
      }),

    /** Pauses a whole feature (writes refused, workers stop at their next step), or resumes it. */
    setPaused: (feature: string, paused: boolean) =>
      act(paused ? "pause" : "resume", async () => {
        await (paused ? repo.work.pause(feature) : repo.work.resume(feature));
        await refreshTasks(feature);
      }),

    commit: (feature: string, task: number | string) =>
      act("commit", async () => {
        const id = `${feature}/${task}`;
        const key = commitKeys.get(id) ?? randomId();
        commitKeys.set(id, key);
        const outcome = await api.commitTask(feature, task, key);
        commitKeys.delete(id);
        if (!outcome.committed)
          setWork((w) => ({
            ...w,
            error: `Not committed: ${outcome.conflicts.join(", ")} changed in another task meanwhile. The task is blocked until someone decides.`,
          }));
        await loadTask(feature, task);
      }),

    /** Answers a blocked task from its page (also one blocked by a commit conflict, which has no run waiting in the inbox). */
    answer: (feature: string, task: number | string, text: string) =>
      act("answer", async () => {
        await api.answerTask(feature, task, text);
        await loadTask(feature, task);
      }),

    discard: (feature: string, task: number | string) =>
      act("discard", async () => {
        await api.discardTask(feature, task);
        await loadTask(feature, task);
      }),

    /**
     * Answers a blocked task's question from the inbox. The task is the one whose worker is the asking
     * agent: its name says which (`<feature>-task-<n>`), checked against that feature's board, else
     * every feature's board is searched.
     */
    async findTaskOf(agent: string): Promise<{ feature: string; task: number }> {
      const named = WORKER_NAME.exec(agent);
      if (named) {
        const tasks = await api
          .listTasks(named[1]!)
          .then((r) => r.tasks)
          .catch(() => []);
        const hit = tasks.find((t) => t.worker === agent);
        if (hit) return { feature: named[1]!, task: hit.number };
      }
      for (const f of (await api.listFeatures()).features) {
        const hit = (await api.listTasks(f.name)).tasks.find((t) => t.worker === agent);
        if (hit) return { feature: f.name, task: hit.number };
      }
      throw new Error(`no task is worked by '${agent}' any more`);
    },
  };
}

export type WorkFeature = ReturnType<typeof makeWorkFeature>;
