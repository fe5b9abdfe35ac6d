import { LitElement, css, html, nothing } from "lit";
import { askerOf } from "../delegation";
import type { AgentDetail } from "../state";
import type { ResolvedModel, RunSummary, Schedule, ScriptInfo } from "../api";
import type { Loadable } from "../types";
import { base, emit, statusBadge, statusLabel, timeAgo, timeUntil } from "./shared";
import "./eval-history";
import { agentSpend } from "./spend";

/**
 * One agent: its description, role, standing goals, instructions and model, its script (with compile
 * warnings), schedules (pause and resume), connections, recent runs (each links to its trace) and
 * the delegation picture (bus counts, chains). Each of the
 * agent's declared fields it shows (core/agents/definition.ts, `views.pwaPage`) is marked
 * `data-field="<path>"`, so test/browser/agent-page.spec.mjs finds each one the declaration says it shows.
 *
 * Events: `pause-schedule` {agent, behavior, paused}.
 */
export class PantheonActorDetail extends LitElement {
  static override properties = { detail: { attribute: false } };
  declare detail: AgentDetail | null;

  static override styles = [
    base,
    css`
    .grid { display: grid; gap: 1rem; align-items: start; }
    @media (min-width: 900px) { .grid { grid-template-columns: 1fr 1fr; } .wide { grid-column: 1 / -1; } }
    .head { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
    .head h2 { margin: 0; }
    nav.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin: .75rem 0 1rem; }
    ul { list-style: none; padding: 0; margin: 0; }
    li { padding: .6rem 0; border-bottom: 1px solid var(--border); }
    li:last-child { border-bottom: 0; }
    .line { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
    .sched { display: flex; gap: .75rem; align-items: center; }
    .sched > div { flex: 1; min-width: 0; }
    .sched button { min-width: 6.5rem; }
    .stats { display: grid; grid-template-columns: repeat(3, 1fr); gap: .5rem; margin-bottom: .75rem; }
    .stat { background: var(--surface-2); border-radius: 10px; padding: .5rem .6rem; text-align: center; }
    .stat strong { display: block; font-size: 1.35rem; font-variant-numeric: tabular-nums; }
    .stat.bad strong { color: var(--danger); }
    pre.script { max-height: 28rem; counter-reset: line; }
    .warn-list { border: 1px solid var(--warn); background: var(--warn-soft); border-radius: 10px; padding: .5rem .75rem; margin: .5rem 0; }
    .warn-list li { border: 0; padding: .2rem 0; }
    .loc { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .8rem; color: var(--muted); white-space: nowrap; }
    .card h3 { display: flex; align-items: center; gap: .5rem; }
  `,
  ];

  override render() {
    const d = this.detail;
    if (!d) return nothing;
    const a = encodeURIComponent(d.agent);
    const info = d.info.status === "ready" ? d.info.data : null;
    return html`
      <p><a href="#/agents">← All agents</a></p>
      <div class="head"><h2>${d.agent}</h2>${info?.status ? html`<span class=${statusBadge(info.status)}>${statusLabel(info.status)}</span>` : nothing}${info?.archivedAt ? html`<span class="badge" title="Its supervisor archived it: no agent can ask it; its history stays readable">archived</span>` : nothing}</div>
      ${info?.description ? html`<p class="muted" data-field="description">${info.description}</p>` : nothing}
      ${info ? agentSpend(info.spend) : nothing}
      ${d.info.status === "error" ? html`<div class="alert error" role="alert">${d.info.error}</div>` : nothing}
      <nav class="actions" aria-label="Agent actions">
        <a class="button primary" href="#/agents/${a}/chat">Chat</a>
        <a class="button" href="#/agents/${a}/tools">Run a tool</a>
        <a class="button" href="#/agents/${a}/context">What it sees</a>
      </nav>
      <div class="grid">
        <section class="card" aria-labelledby="sched-h">
          <h3 id="sched-h">Schedules</h3>
          ${d.scheduleError ? html`<div class="alert error" role="alert">${d.scheduleError}</div>` : nothing}
          ${section(d.schedules, (list) =>
            list.length === 0
              ? html`<p class="muted">Nothing scheduled: the script has no behaviors.</p>`
              : html`<ul>${list.map((s) => this.schedule(d, s))}</ul>`,
          )}
        </section>
        <section class="card" aria-labelledby="runs-h">
          <h3 id="runs-h">Recent runs</h3>
          ${section(d.runs, (runs) => (runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<ul>${runs.map((r) => this.run(d, r))}</ul>`))}
        </section>
        <section class="card" aria-labelledby="evals-h">
          <h3 id="evals-h">Evals</h3>
          <pantheon-eval-history .runs=${d.evals} agent=${d.agent}></pantheon-eval-history>
        </section>
        <section class="card" aria-labelledby="goals-h">
          <h3 id="goals-h">Goals</h3>
          ${info?.role ? html`<p class="small muted" data-field="role">Role: ${info.role}</p>` : nothing}
          ${
            info === null
              ? section(d.info, () => nothing)
              : (info.goals ?? []).length === 0
                ? html`<p class="muted">No standing goals. An operator sets them: <code>pantheon agents goals ${d.agent} --goal "…"</code></p>`
                : html`<ul aria-label="Standing goals of ${d.agent}" data-field="goals">${(info.goals ?? []).map((g) => html`<li>${g}</li>`)}</ul>
              <p class="small muted">In every run's context; <code>pantheon agents tick ${d.agent}</code> works toward them.</p>`
          }
        </section>
        <section class="card" aria-labelledby="conn-h">
          <h3 id="conn-h">Connections</h3>
          ${
            info === null
              ? section(d.info, () => nothing)
              : (info.connections ?? []).length === 0
                ? html`<p class="muted">Not connected: this agent asks no other agent.</p>`
                : html`<p class="small muted">Can ask:</p><ul data-field="connections">${(info.connections ?? []).map((c) => html`<li><a href="#/agents/${encodeURIComponent(c)}">${c}</a></li>`)}</ul>`
          }
        </section>
        <section class="card" aria-labelledby="bus-h">
          <h3 id="bus-h">Delegation</h3>
          ${section(
            d.bus,
            (bus) => html`
            <div class="stats" aria-label="Messages for ${d.agent} on the bus">
              <div class="stat"><strong>${bus.pending}</strong><span class="small muted">waiting</span></div>
              <div class="stat"><strong>${bus.inFlight}</strong><span class="small muted">in flight</span></div>
              <div class="stat ${bus.dead ? "bad" : ""}"><strong>${bus.dead}</strong><span class="small muted">dead letters</span></div>
            </div>`,
          )}
          ${this.chains(d)}
        </section>
        <section class="card wide" aria-labelledby="script-h">
          <h3 id="script-h">Script ${d.script.status === "ready" && d.script.data ? html`<span class="badge">${d.script.data.format === "json" ? "JSON" : "DSL"}</span>` : nothing}</h3>
          ${section(d.script, (script) => this.script(script))}
          ${info?.systemPrompt ? html`<h3>Instructions</h3><pre data-field="systemPrompt">${info.systemPrompt}</pre>` : nothing}
          ${info?.model ? html`<p class="small muted" data-field="model.provider model.name">Model: ${info.model.provider} · ${info.model.name}</p>` : nothing}
          ${info?.resolvedModel ? resolvedModel(info.resolvedModel) : nothing}
        </section>
      </div>`;
  }

  private schedule(d: AgentDetail, s: Schedule) {
    const busy = d.pausing.includes(s.behavior);
    const when = s.paused
      ? "paused: it will not run until resumed"
      : s.mode === "active"
        ? "runs on each message"
        : s.nextRunAt
          ? html`next run <time datetime=${new Date(s.nextRunAt).toISOString()} title=${new Date(s.nextRunAt).toLocaleString()}>${timeUntil(s.nextRunAt)}</time>`
          : "not scheduled";
    return html`<li class="sched" data-behavior=${s.behavior}>
      <div>
        <div class="line"><strong>${s.behavior}</strong><span class="badge">${s.mode}</span>${s.paused ? html`<span class="badge warn">paused</span>` : nothing}</div>
        <div class="small muted">${s.talent} · ${s.mode === "active" ? nothing : html`${s.trigger} · `}${when}</div>
        <div class="small">${
          s.lastRunAt
            ? html`Last run ${timeAgo(s.lastRunAt)} <span class=${statusBadge(s.lastStatus)}>${statusLabel(s.lastStatus)}</span>`
            : html`<span class="muted">Has not run yet</span>`
        }
          ${s.failures ? html` · <span class="badge bad">${s.failures} failed</span>` : nothing}</div>
        ${s.lastError ? html`<div class="small muted">Last error: ${s.lastError}</div>` : nothing}
      </div>
      <button class=${s.paused ? "primary" : ""} ?disabled=${busy} aria-label="${s.paused ? "Resume" : "Pause"} ${s.behavior}"
        @click=${() => emit(this, "pause-schedule", { agent: d.agent, behavior: s.behavior, paused: !s.paused })}>${busy ? "…" : s.paused ? "Resume" : "Pause"}</button>
    </li>`;
  }

  private run(d: AgentDetail, r: RunSummary) {
    const asker = askerOf(r);
    const chain = d.conversations[r.id];
    return html`<li class="line">
      <a href="#/agents/${encodeURIComponent(d.agent)}/runs/${encodeURIComponent(r.id)}" ><span class="sr-only">Trace of the run: </span>${r.trigger ?? "run"} · ${timeAgo(r.startedAt)}</a>
      <span class=${statusBadge(r.status)}>${statusLabel(r.status)}</span>
      <span class="muted small">${r.steps ?? 0} steps · ${r.tokens ?? 0} tokens</span>
      ${asker ? html`<span class="badge run">asked by ${asker}</span>` : nothing}
      ${chain ? html`<a class="small" href="#/conversations/${encodeURIComponent(chain)}">Delegation chain</a>` : nothing}
    </li>`;
  }

  private chains(d: AgentDetail) {
    const ids = [...new Set(Object.values(d.conversations))];
    if (d.runs.status !== "ready") return nothing;
    if (ids.length === 0)
      return html`<p class="small muted">None of the recent runs asked another agent or was asked by one.</p>`;
    return html`<p class="small muted">Recent delegation chains:</p><ul>${ids.map((id) => {
      const runs = d.runs.status === "ready" ? d.runs.data.filter((r) => d.conversations[r.id] === id) : [];
      const asker = runs.map(askerOf).find(Boolean);
      return html`<li class="line"><a href="#/conversations/${encodeURIComponent(id)}">${asker ? `Asked by ${asker}` : `${d.agent} asked`}</a>
        <span class="muted small">${timeAgo(runs[0]?.startedAt)}</span></li>`;
    })}</ul>`;
  }

  private script(script: ScriptInfo | null) {
    if (!script)
      return html`<p class="muted">No script: this agent only chats. Load one with <code>PUT /api/agents/${this.detail?.agent}/script</code>.</p>`;
    return html`
      ${
        script.warnings.length
          ? html`<div class="warn-list" role="note" aria-label="Compile warnings">
        <strong class="small">${script.warnings.length === 1 ? "1 warning" : `${script.warnings.length} warnings`}</strong>
        <ul>${script.warnings.map((w) => html`<li class="small"><span class="loc">line ${w.line}:${w.column}</span> ${w.message}</li>`)}</ul>
      </div>`
          : html`<p class="small muted">Compiles without warnings.</p>`
      }
      <pre class="script" tabindex="0" aria-label="Script source" data-field="script">${script.source}</pre>`;
  }
}

/** What answers on this deployment and why: a stand-in, a fallback, or a missing secret is said plainly. */
function resolvedModel(r: ResolvedModel) {
  const badge = r.status === "ok" ? "badge ok" : r.status === "unavailable" ? "badge bad" : "badge warn";
  const label =
    r.status === "ok"
      ? "answers"
      : r.status === "fallback"
        ? "fallback answers"
        : r.status === "stand-in"
          ? "offline stand-in"
          : "unavailable";
  return html`<div class="resolved-model" data-status=${r.status}>
    <p class="small line"><span>Answers here: <strong>${r.provider} · ${r.name}</strong></span><span class=${badge}>${label}</span></p>
    <p class="small muted">${r.reason}</p>
    ${r.fallback ? html`<p class="small muted">Fallback: ${r.fallback.provider} · ${r.fallback.name} (${r.fallback.available ? "available" : `unavailable: ${r.fallback.reason}`})</p>` : nothing}
    ${r.missing && r.status !== "ok" ? html`<p class="small">To use ${r.missing.provider}: <code>${r.missing.fix}</code></p>` : nothing}
  </div>`;
}

function section<T>(value: Loadable<T>, ready: (data: T) => unknown) {
  if (value.status === "ready") return ready(value.data);
  if (value.status === "error") return html`<div class="alert error" role="alert">${value.error}</div>`;
  return html`<p class="muted">Loading…</p>`;
}

customElements.define("pantheon-actor-detail", PantheonActorDetail);
