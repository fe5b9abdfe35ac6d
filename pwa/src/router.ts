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
  | { view: "plan"; feature: string; version?: number }
  | { view: "task"; feature: string; task: number }
  /** An invite's one-time sign-in link, opened on the person's device. */
  | { view: "join"; code: string; project: string }
  /** An admin's people and devices: invite someone, see whose device each token is, revoke. */
  | { view: "people" };

/**
 * @example
 * parseHash("#/agents/helper/runs/r1") // { view: "trace", agent: "helper", runId: "r1" }
 * parseHash("#/features/login/tasks/2") // { view: "task", feature: "login", task: 2 }
 */
export function parseHash(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?");
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const [first, agent, sub, id] = parts;
  if (first === "approvals") return { view: "approvals" };
  if (first === "people") return { view: "people" };
  if (first === "join" && agent) return { view: "join", code: agent, project: params.get("project") || "default" };
  if (first === "conversations" && agent) return { view: "conversation", id: agent };
  if (first === "features") {
    const feature = agent;
    if (!feature) return { view: "features" };
    if (sub === "plan") return Number(params.get("version")) > 0 ? { view: "plan", feature, version: Number(params.get("version")) } : { view: "plan", feature };
    if (sub === "tasks" && Number(id) > 0) return { view: "task", feature, task: Number(id) };
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
      return Number(params.get("max")) > 0 ? { view: "context", agent, q: params.get("q")!, max: Number(params.get("max")) } : { view: "context", agent, q: params.get("q")! };
    case "tools":
      return id ? { view: "tools", agent, tool: id } : { view: "tools", agent };
    case "workflows":
      return id ? { view: "workflow", agent, id } : { view: "agent", agent };
    default:
      return { view: "agent", agent };
  }
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
      return `#/features/${encodeURIComponent(route.feature)}/plan${route.version ? `?version=${route.version}` : ""}`;
    case "task":
      return `#/features/${encodeURIComponent(route.feature)}/tasks/${route.task}`;
    case "join":
      return `#/join/${encodeURIComponent(route.code)}${route.project === "default" ? "" : `?project=${encodeURIComponent(route.project)}`}`;
    case "people":
      return "#/people";
  }
}
