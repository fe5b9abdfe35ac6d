import { LitElement, css, html, nothing } from "lit";
import type { Approval } from "../api";
import type { Loadable } from "../types";
import { questionLinkOf, type QuestionLinks } from "../work-attention";
import { isMcpQuestion, mcpQuestionCard } from "./mcp-question";
import { base, emit, pretty, timeAgo } from "./shared";

/**
 * Every run waiting for a person, with approve and reject one tap away. A task's worker asking a
 * question (`task.block`) gets an answer box instead: the answer is what its run goes on with. An
 * MCP server's question gets the form its schema asks for (mcp-question.ts).
 *
 * Events: `decide` {agent, runId, callId, decision}, `answer` {agent, runId, callId, answer},
 * `mcp-answer` {agent, runId, callId, action, content?}, `reload`.
 */
export class PantheonApprovals extends LitElement {
  static override properties = {
    approvals: { attribute: false },
    deciding: { attribute: false },
    error: { type: String },
  };
  declare approvals: Loadable<Approval[]>;
  declare deciding: string[];
  declare error: string | null;

  constructor() {
    super();
    this.approvals = { status: "idle" };
    this.deciding = [];
    this.error = null;
  }

  static override styles = [
    base,
    css`
    .list { display: grid; gap: .75rem; }
    .actions { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem; margin-top: .5rem; }
    .actions button { width: 100%; }
    .question { font-size: 1.05rem; margin: .5rem 0; white-space: pre-wrap; }
    textarea { min-height: 4.5rem; }
    .field { display: grid; gap: .25rem; margin: .5rem 0; }
    .row.field { display: flex; align-items: center; gap: .5rem; }
  `,
  ];

  private answer(e: Event, x: Approval) {
    e.preventDefault();
    const answer = String(new FormData(e.target as HTMLFormElement).get("answer") ?? "").trim();
    const links = x as Approval & QuestionLinks;
    if (answer)
      emit(this, "answer", {
        agent: x.agent,
        runId: x.runId,
        callId: x.callId,
        tool: x.tool,
        kind: links.kind,
        feature: links.feature,
        task: links.task,
        taskKey: links.taskKey,
        answer,
      });
  }

  private question(x: Approval) {
    const args = x.arguments as { question?: unknown } | null;
    const text = typeof args?.question === "string" ? args.question : pretty(x.arguments);
    // A call id is unique within its run only (two workers' first calls may share one): the run makes it unique.
    const id = `answer-${x.runId}-${x.callId}`;
    const link = questionLinkOf(x as Approval & QuestionLinks);
    const f = link ? encodeURIComponent(link.feature) : "";
    return html`
      <article class="card" aria-label="${x.agent} asks a question">
        <div class="row"><strong>${x.agent}</strong><span class="muted">asks</span><span class="spacer"></span>
          <span class="muted small">${timeAgo(x.requestedAt)}</span></div>
        ${
          link
            ? html`<p class="small about">About <a href="#/features/${f}">feature ${link.feature}</a>${
                link.task !== undefined
                  ? html` · <a href="#/features/${f}/tasks/${encodeURIComponent(link.task)}">task ${link.task}</a>`
                  : html` · <a href="#/features/${f}/plan">its plan</a>`
              }</p>`
            : nothing
        }
        <p class="question">${text}</p>
        <form @submit=${(e: Event) => this.answer(e, x)}>
          <label for=${id}>Your answer</label>
          <textarea id=${id} name="answer" required maxlength="20000"></textarea>
          <div class="row" style="margin-top:.5rem">
            ${x.runId ? html`<a class="small" href="#/agents/${encodeURIComponent(x.agent)}/runs/${encodeURIComponent(x.runId)}">Open the run</a>` : nothing}<span class="spacer"></span>
            <button class="primary" type="submit" ?disabled=${this.deciding.includes(x.callId)}>${this.deciding.includes(x.callId) ? "Sending…" : "Send answer"}</button>
          </div>
        </form>
      </article>`;
  }

  override render() {
    const a = this.approvals;
    const list = "data" in a && a.data ? a.data : [];
    return html`
      <div class="row"><h2>Approvals</h2><span class="spacer"></span><button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh approvals">↻ Refresh</button></div>
      ${this.error ? html`<div class="alert error" role="alert">${this.error}</div>` : nothing}
      ${a.status === "error" ? html`<div class="alert error" role="alert">${a.error}</div>` : nothing}
      ${a.status === "loading" && list.length === 0 ? html`<p class="muted">Loading…</p>` : nothing}
      ${a.status === "ready" && list.length === 0 ? html`<div class="card"><h3>Nothing waiting</h3><p class="muted">When an agent asks to use a tool that needs a person, it appears here.</p></div>` : nothing}
      <div class="list">
        ${list.map((x) =>
          isMcpQuestion(x)
            ? mcpQuestionCard(this, x, this.deciding.includes(x.callId))
            : x.tool === "task.block" || (x as Approval & QuestionLinks).kind === "question"
              ? this.question(x)
              : html`
          <article class="card" aria-label="${x.agent} wants to run ${x.tool}">
            <div class="row"><strong>${x.agent}</strong><span class="muted">wants to run</span><code>${x.tool}</code><span class="spacer"></span>
              <span class="muted small">${timeAgo(x.requestedAt)}</span></div>
            <pre>${pretty(x.arguments)}</pre>
            ${x.runId ? html`<a class="small" href="#/agents/${encodeURIComponent(x.agent)}/runs/${encodeURIComponent(x.runId)}">Open the run</a>` : nothing}
            <div class="actions">
              <button class="primary" ?disabled=${this.deciding.includes(x.callId)} @click=${() => emit(this, "decide", { ...x, decision: "approve" })}>Approve</button>
              <button class="danger" ?disabled=${this.deciding.includes(x.callId)} @click=${() => emit(this, "decide", { ...x, decision: "reject" })}>Reject</button>
            </div>
          </article>`,
        )}
      </div>`;
  }
}

customElements.define("pantheon-approvals", PantheonApprovals);
