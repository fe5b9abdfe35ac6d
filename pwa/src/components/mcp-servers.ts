import { LitElement, css, html, nothing } from "lit";
import { base } from "./shared";

/** An MCP server as `GET /api/agents/:name/mcp` lists it (the fields this view shows). */
interface McpServerView {
  id: string;
  url: string;
  state: string;
  error: string | null;
  tools: { name: string }[];
  authUrl?: string;
  /** Declared by the project for all its agents: removed and authorised there, not on the agent. */
  project?: true;
}

/** One of the project's servers as `GET /api/projects/:slug/mcp` lists it (admins only). */
interface ProjectServerView {
  name: string;
  oauth?: true;
  authorisation?: { state: string; authUrl?: string; reason?: string };
}

/** The states in which a person's authorisation is what the server waits for. */
const waitsForPerson = (state: string) => state === "authenticating" || state === "needs_reauthorization";

const toolCount = (n: number) => `${n} ${n === 1 ? "tool" : "tools"}`;

const stateText: Record<string, string> = {
  ready: "connected",
  authenticating: "waiting to be authorised",
  needs_reauthorization: "needs authorising again",
};

/**
 * The agent's remote MCP servers on its tools page: each with its state, and for one waiting for a
 * person (first time, or its token could not be refreshed) an Authorise button that opens the
 * provider's consent page; the provider sends the browser back through Pantheon's callback to this
 * page with `?mcp=<server>`, which then says the server is connected. Reads the API itself (as
 * notifications.ts does) so the tools page's state stays as it was. The project's servers (for all
 * its agents) are marked as the project's; one the project authorises by OAuth that waits for a
 * person has an Authorise button for an admin of the project (who alone reads the project's list),
 * and says so to anyone else. Below admin neither list answers (they carry URLs and consent pages), so
 * the card only says that an admin of the project sees and authorises them.
 */
export class PantheonMcpServers extends LitElement {
  static override properties = {
    agent: { type: String },
    servers: { state: true },
    projectServers: { state: true },
    error: { state: true },
    adminsOnly: { state: true },
  };
  declare agent: string;
  declare servers: McpServerView[] | null;
  /** Null unless the person is an admin of the project (the project's list answers them only). */
  declare projectServers: ProjectServerView[] | null;
  declare error: string | null;
  /** The agent's list answered 403: the person (chat or approve scope) may not see or authorise its servers. */
  declare adminsOnly: boolean;
  private loadedFor = "";

  constructor() {
    super();
    this.agent = "";
    this.servers = null;
    this.projectServers = null;
    this.error = null;
    this.adminsOnly = false;
  }

  private request(path: string, method = "GET") {
    const token = localStorage.getItem("pantheon.token");
    return fetch(path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        "x-pantheon-project": this.project(),
        accept: "application/json",
      },
    });
  }
  private project = () => localStorage.getItem("pantheon.project") ?? "default";

  static override styles = [
    base,
    css`
    section.card { margin-bottom: 1rem; }
    ul { list-style: none; padding: 0; margin: 0; display: grid; gap: .6rem; }
    li { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between; }
    .name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 600; }
    a.button { display: inline-flex; align-items: center; min-height: 44px; padding: .4rem 1rem; }
  `,
  ];

  override updated() {
    if (this.agent && this.agent !== this.loadedFor) {
      this.loadedFor = this.agent;
      void this.load();
    }
  }

  private async load() {
    try {
      const [res, project] = await Promise.all([
        this.request(`/api/agents/${encodeURIComponent(this.agent)}/mcp`),
        this.request(`/api/projects/${encodeURIComponent(this.project())}/mcp`),
      ]);
      this.projectServers = project.ok ? ((await project.json()) as { servers: ProjectServerView[] }).servers : null;
      // Below admin the list is refused; that is no error of the page, so say who sees and authorises them.
      this.adminsOnly = res.status === 403;
      if (this.adminsOnly) {
        this.servers = [];
        this.error = null;
        return;
      }
      const body = (await res.json()) as { servers?: McpServerView[]; error?: { message?: string } };
      if (!res.ok) throw new Error(body.error?.message ?? `the server answered ${res.status}`);
      this.servers = body.servers ?? [];
      this.error = null;
    } catch (error) {
      this.error = `Could not list the MCP servers: ${(error as Error).message}`;
    }
  }

  /** An admin authorises the project's server for all its agents: a fresh consent page, opened here. */
  private async authorise(name: string) {
    try {
      const res = await this.request(
        `/api/projects/${encodeURIComponent(this.project())}/mcp/${encodeURIComponent(name)}/authorise`,
        "POST",
      );
      const body = (await res.json()) as { authUrl?: string; state?: string; error?: { message?: string } };
      if (!res.ok) throw new Error(body.error?.message ?? `the server answered ${res.status}`);
      if (body.authUrl) {
        // The project's callback returns to #/agents; main.ts sends this tab on to this page from there.
        const back = `#/agents/${encodeURIComponent(this.agent)}/tools?mcp=${encodeURIComponent(name)}`;
        sessionStorage.setItem("pantheon.mcpReturn", `${this.project()} ${back}`);
        location.assign(body.authUrl);
      } else await this.load();
    } catch (error) {
      this.error = `Could not authorise ${name}: ${(error as Error).message}`;
    }
  }

  /** The project's OAuth server `name` waits for a person: an admin's button, or who to ask. */
  private projectAuthorise(name: string) {
    if (!this.projectServers)
      return html`<span class="muted small">an admin of the project authorises it for all its agents</span>`;
    return html`<button class="primary" @click=${() => this.authorise(name)} aria-label="Authorise ${name} for the project">Authorise</button>`;
  }

  /** The server the browser came back for from a consent page (`#/agents/a/tools?mcp=<server>`). */
  private returnedFor(): string | null {
    const query = location.hash.split("?")[1];
    return query ? new URLSearchParams(query).get("mcp") : null;
  }

  override render() {
    if (this.error) return html`<div class="alert error" role="alert">${this.error}</div>`;
    if (this.adminsOnly)
      return html`<section class="card" aria-label="MCP servers">
        <h3>MCP servers</h3>
        <p class="muted small">An admin of the project sees the agent's MCP servers and authorises those that need it, for all its agents.</p>
      </section>`;
    const agentIds = new Set((this.servers ?? []).map((s) => s.id));
    // The project's OAuth servers not connected for this agent yet: waiting for their authorisation.
    const waiting = (this.projectServers ?? []).filter(
      (s) => s.oauth && s.authorisation?.state !== "authorised" && !agentIds.has(s.name),
    );
    if (!this.servers?.length && !waiting.length) return nothing;
    const returned = this.returnedFor();
    const back = returned ? this.servers?.find((s) => s.id === returned) : undefined;
    return html`
      <section class="card" aria-label="MCP servers">
        <h3>MCP servers</h3>
        ${back?.state === "ready" ? html`<div class="alert info" role="status">${back.id} is connected: its ${toolCount(back.tools.length)} ${back.tools.length === 1 ? "is" : "are"} the agent's.</div>` : nothing}
        <ul>${(this.servers ?? []).map(
          (s) => html`<li>
            <span><span class="name">${s.id}</span>
              ${s.project ? html`<span class="badge" title="declared by the project for all its agents">project's</span>` : nothing}
              <span class=${s.state === "ready" ? "badge ok" : waitsForPerson(s.state) ? "badge" : "badge bad"}>${stateText[s.state] ?? s.state}</span>
              ${s.state === "ready" ? html`<span class="muted small">${toolCount(s.tools.length)}</span>` : nothing}</span>
            ${
              waitsForPerson(s.state) && s.authUrl
                ? html`<a class="button primary" href=${s.authUrl} rel="noopener noreferrer" aria-label="Authorise ${s.id}">Authorise</a>`
                : s.project && waitsForPerson(s.state)
                  ? this.projectAuthorise(s.id)
                  : nothing
            }
            ${s.error ? html`<p class="muted small" style="flex-basis:100%;margin:0">${s.error}</p>` : nothing}
          </li>`,
        )}${waiting.map(
          (s) => html`<li>
            <span><span class="name">${s.name}</span>
              <span class="badge" title="declared by the project for all its agents">project's</span>
              <span class="badge">${s.authorisation?.state === "needs_reauthorization" ? "needs authorising again" : "waiting to be authorised"}</span></span>
            ${this.projectAuthorise(s.name)}
          </li>`,
        )}</ul>
      </section>`;
  }
}

customElements.define("pantheon-mcp-servers", PantheonMcpServers);
