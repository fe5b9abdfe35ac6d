/** Hash routes: the PWA is one static page, so deep links and the back button live in `#/…`. */
export type Route =
  | { view: "agents" }
  | { view: "approvals" }
  | { view: "conversation"; id: string }
  /** A workflow run's graph (GET /api/agents/:name/workflows/:id). */
  | { view: "workflow"; agent: string; id: string }
  | { view: "agent"; agent: string }
  | { view: "chat"; agent: string; session?: string }
  | { view: "trace"; agent: string; runId: string }
  | { view: "context"; agent: string; q?: string; max?: number }
  | { view: "tools"; agent: string; tool?: string }
  | { view: "features" }
  | { view: "feature"; feature: string }
  /** A plan version; with `compare`, shown as the changes since that earlier version. */
  | { view: "plan"; feature: string; version?: number; compare?: number }
  /** A task by its number or its stable key (`login-form`). */
  | { view: "task"; feature: string; task: number | string }
  /** The feature's commits (on `ref`: a branch or a commit; the feature branch by default). */
  | { view: "commits"; feature: string; ref?: string }
  | { view: "commit"; feature: string; sha: string }
  /** The committed files (at `ref`), and one file's content when `path` is named. */
  | { view: "files"; feature: string; ref?: string; path?: string }
  /** An invite's one-time sign-in link, opened on the person's device. */
  | { view: "join"; code: string; project: string }
  /** An admin's people and devices: invite someone, see whose device each token is, revoke. */
  | { view: "people" }
  /** Something shared into the app from another (Web Share Target): choose the agent it goes to. */
  | { view: "share" };

/**
 * @example
 * parseHash("#/agents/helper/runs/r1") // { view: "trace", agent: "helper", runId: "r1" }
 * parseHash("#/features/login/tasks/2") // { view: "task", feature: "login", task: 2 }
 * parseHash("#/features/login/plan?version=2&compare=1") // { view: "plan", feature: "login", version: 2, compare: 1 }
 */
export function parseHash(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?");
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const [first, agent, sub, id] = parts;
  if (first === "approvals") return { view: "approvals" };
  if (first === "people") return { view: "people" };
  if (first === "share") return { view: "share" };
  if (first === "join" && agent) return { view: "join", code: agent, project: params.get("project") || "default" };
  if (first === "conversations" && agent) return { view: "conversation", id: agent };
  if (first === "features") {
    const feature = agent;
    if (!feature) return { view: "features" };
    if (sub === "plan") {
      const version = Number(params.get("version"));
      const compare = Number(params.get("compare"));
      return { view: "plan", feature, ...(version > 0 ? { version } : {}), ...(compare > 0 ? { compare } : {}) };
    }
    if (sub === "tasks" && Number(id) > 0) return { view: "task", feature, task: Number(id) };
    if (sub === "tasks" && id && TASK_KEY.test(id)) return { view: "task", feature, task: id };
    if (sub === "commits")
      return id
        ? { view: "commit", feature, sha: id }
        : { view: "commits", feature, ...(params.get("ref") ? { ref: params.get("ref")! } : {}) };
    if (sub === "files")
      return {
        view: "files",
        feature,
        ...(params.get("ref") ? { ref: params.get("ref")! } : {}),
        ...(params.get("path") ? { path: params.get("path")! } : {}),
      };
    return { view: "feature", feature };
  }
  if (first !== "agents" || !agent) return { view: "agents" };
  switch (sub) {
    case undefined:
      return { view: "agent", agent };
    case "chat":
      return params.get("session") ? { view: "chat", agent, session: params.get("session")! } : { view: "chat", agent };
    case "runs":
      return id ? { view: "trace", agent, runId: id } : { view: "agent", agent };
    case "context":
      if (!params.get("q")) return { view: "context", agent };
      return Number(params.get("max")) > 0
        ? { view: "context", agent, q: params.get("q")!, max: Number(params.get("max")) }
        : { view: "context", agent, q: params.get("q")! };
    case "tools":
      return id ? { view: "tools", agent, tool: id } : { view: "tools", agent };
    case "workflows":
      return id ? { view: "workflow", agent, id } : { view: "agent", agent };
    default:
      return { view: "agent", agent };
  }
}

/** A task's stable key (its name as a slug, e.g. `login-form`): never all digits, so never a number. */
const TASK_KEY = /^(?!\d+$)[a-z0-9][a-z0-9-]{0,79}$/;

/** `?a=1&b=x` of the values given, or nothing. */
function search(q: Record<string, string | number | undefined>): string {
  const s = new URLSearchParams(
    Object.entries(q)
      .filter(([, v]) => v !== undefined && v !== "")
      .map(([k, v]) => [k, String(v)]),
  ).toString();
  return s ? `?${s}` : "";
}

export function toHash(route: Route): string {
  const a = "agent" in route ? encodeURIComponent(route.agent) : "";
  switch (route.view) {
    case "agents":
      return "#/agents";
    case "approvals":
      return "#/approvals";
    case "conversation":
      return `#/conversations/${encodeURIComponent(route.id)}`;
    case "agent":
      return `#/agents/${a}`;
    case "chat":
      return `#/agents/${a}/chat${route.session ? `?session=${encodeURIComponent(route.session)}` : ""}`;
    case "trace":
      return `#/agents/${a}/runs/${encodeURIComponent(route.runId)}`;
    case "context":
      return `#/agents/${a}/context${route.q ? `?q=${encodeURIComponent(route.q)}${route.max ? `&max=${route.max}` : ""}` : ""}`;
    case "tools":
      return `#/agents/${a}/tools${route.tool ? `/${encodeURIComponent(route.tool)}` : ""}`;
    case "workflow":
      return `#/agents/${a}/workflows/${encodeURIComponent(route.id)}`;
    case "features":
      return "#/features";
    case "feature":
      return `#/features/${encodeURIComponent(route.feature)}`;
    case "plan":
      return `#/features/${encodeURIComponent(route.feature)}/plan${search({ version: route.version, compare: route.compare })}`;
    case "task":
      return `#/features/${encodeURIComponent(route.feature)}/tasks/${encodeURIComponent(route.task)}`;
    case "commits":
      return `#/features/${encodeURIComponent(route.feature)}/commits${search({ ref: route.ref })}`;
    case "commit":
      return `#/features/${encodeURIComponent(route.feature)}/commits/${encodeURIComponent(route.sha)}`;
    case "files":
      return `#/features/${encodeURIComponent(route.feature)}/files${search({ ref: route.ref, path: route.path })}`;
    case "join":
      return `#/join/${encodeURIComponent(route.code)}${route.project === "default" ? "" : `?project=${encodeURIComponent(route.project)}`}`;
    case "people":
      return "#/people";
    case "share":
      return "#/share";
  }
}
