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
}

/** The states in which a person's authorisation is what the server waits for. */
const waitsForPerson = (state: string) => state === "authenticating" || state === "needs_reauthorization";

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
 * notifications.ts does) so the tools page's state stays as it was.
 */
export class PantheonMcpServers extends LitElement {
  static override properties = {
    agent: { type: String },
    servers: { state: true },
    error: { state: true },
  };
  declare agent: string;
  declare servers: McpServerView[] | null;
  declare error: string | null;
  private loadedFor = "";

  constructor() {
    super();
    this.agent = "";
    this.servers = null;
    this.error = null;
  }

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
      const token = localStorage.getItem("pantheon.token");
      const res = await fetch(`/api/agents/${encodeURIComponent(this.agent)}/mcp`, {
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          "x-pantheon-project": localStorage.getItem("pantheon.project") ?? "default",
          accept: "application/json",
        },
      });
      const body = (await res.json()) as { servers?: McpServerView[]; error?: { message?: string } };
      if (!res.ok) throw new Error(body.error?.message ?? `the server answered ${res.status}`);
      this.servers = body.servers ?? [];
      this.error = null;
    } catch (error) {
      this.error = `Could not list the MCP servers: ${(error as Error).message}`;
    }
  }

  /** The server the browser came back for from a consent page (`#/agents/a/tools?mcp=<server>`). */
  private returnedFor(): string | null {
    const query = location.hash.split("?")[1];
    return query ? new URLSearchParams(query).get("mcp") : null;
  }

  override render() {
    if (this.error) return html`<div class="alert error" role="alert">${this.error}</div>`;
    if (!this.servers?.length) return nothing;
    const returned = this.returnedFor();
    const back = returned ? this.servers.find((s) => s.id === returned) : undefined;
    return html`
      <section class="card" aria-label="MCP servers">
        <h3>MCP servers</h3>
        ${back?.state === "ready" ? html`<div class="alert info" role="status">${back.id} is connected: its ${back.tools.length} tools are the agent's.</div>` : nothing}
        <ul>${this.servers.map(
          (s) => html`<li>
            <span><span class="name">${s.id}</span>
              <span class=${s.state === "ready" ? "badge ok" : waitsForPerson(s.state) ? "badge" : "badge bad"}>${stateText[s.state] ?? s.state}</span>
              ${s.state === "ready" ? html`<span class="muted small">${s.tools.length} tools</span>` : nothing}</span>
            ${
              waitsForPerson(s.state) && s.authUrl
                ? html`<a class="button primary" href=${s.authUrl} rel="noopener noreferrer" aria-label="Authorise ${s.id}">Authorise</a>`
                : nothing
            }
            ${s.error ? html`<p class="muted small" style="flex-basis:100%;margin:0">${s.error}</p>` : nothing}
          </li>`,
        )}</ul>
      </section>`;
  }
}

customElements.define("pantheon-mcp-servers", PantheonMcpServers);
