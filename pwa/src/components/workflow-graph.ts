import { LitElement, css, html, nothing } from "lit";
import type { WorkflowView } from "../api";
import type { Loadable } from "../types";
import { base, timeAgo } from "./shared";

type Step = WorkflowView["steps"][number];

/** Each step's layer: 0 for steps that wait for nothing, else one more than the deepest step it waits for. */
export function layersOf(steps: readonly Pick<Step, "id" | "after">[]): string[][] {
  const depth = new Map<string, number>();
  const byId = new Map(steps.map((s) => [s.id, s]));
  const of = (id: string, seen: Set<string> = new Set()): number => {
    if (depth.has(id)) return depth.get(id)!;
    if (seen.has(id)) return 0;
    seen.add(id);
    const d = Math.max(-1, ...(byId.get(id)?.after ?? []).map((a) => of(a, seen))) + 1;
    depth.set(id, d);
    return d;
  };
  const layers: string[][] = [];
  for (const s of steps) (layers[of(s.id)] ??= []).push(s.id);
  return layers.filter(Boolean);
}

const stateClass: Record<string, string> = {
  done: "badge ok",
  failed: "badge bad",
  skipped: "badge",
  running: "badge run",
  pending: "badge",
};
const kindLabel: Record<string, string> = { ask: "asks", fanout: "fan-out", tool: "tool", join: "join" };

/** Where a step's trace link leads in the PWA (fan-outs have no page of their own: the API's JSON). */
function traceHref(agent: string, step: Step): string | null {
  if (!step.trace) return null;
  if (step.kind === "tool" && step.ref)
    return `#/agents/${encodeURIComponent(agent)}/runs/${encodeURIComponent(step.ref)}`;
  if (step.kind === "ask")
    return `#/conversations/${encodeURIComponent(step.trace.slice("/api/conversations/".length))}`;
  return null;
}

/**
 * A workflow run as a graph: its steps in layers (a step sits below every step it waits for), each
 * with its state, its answer (or error) and a link to its trace; the edges are named on each step.
 */
export class PantheonWorkflowGraph extends LitElement {
  static override properties = { workflow: { attribute: false }, agent: { type: String } };
  declare workflow: Loadable<WorkflowView>;
  declare agent: string;

  constructor() {
    super();
    this.workflow = { status: "idle" };
    this.agent = "";
  }

  static override styles = [
    base,
    css`
    .layer { display: flex; flex-wrap: wrap; gap: .6rem; justify-content: center; }
    .edge { text-align: center; color: var(--muted); margin: .2rem 0; }
    .step { flex: 1 1 12rem; max-width: 22rem; border: 1px solid var(--border); border-radius: 12px; padding: .6rem .7rem; background: var(--surface); }
    .step.failed { border-color: var(--danger); background: var(--danger-soft); }
    .step.running { border-style: dashed; }
    .head { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
    .answer { margin: .35rem 0 0; white-space: pre-wrap; word-break: break-word; max-height: 8rem; overflow: auto; }
  `,
  ];

  override render() {
    const w = this.workflow;
    if (w.status === "error") return html`<h2>Workflow</h2><div class="alert error" role="alert">${w.error}</div>`;
    if (w.status !== "ready" || !w.data) return html`<h2>Workflow</h2><p class="muted">Loading the workflow…</p>`;
    const view = w.data;
    const byId = new Map(view.steps.map((s) => [s.id, s]));
    const layers = layersOf(view.steps);
    return html`
      <p><a href="#/agents/${encodeURIComponent(this.agent)}">← ${this.agent}</a></p>
      <h2>Workflow ${view.name} <span class=${stateClass[view.status === "completed" ? "done" : view.status] ?? "badge"} data-testid="workflow-status">${view.status}</span></h2>
      <p class="muted">Input: ${view.input || "(none)"} · started ${timeAgo(view.createdAt)}</p>
      ${view.error ? html`<div class="alert error" role="alert">${view.error}</div>` : nothing}
      <section class="card" aria-label="Steps of the workflow">
        ${layers.map(
          (layer, i) => html`
          ${i > 0 ? html`<div class="edge" aria-hidden="true">↓</div>` : nothing}
          <div class="layer" role="list">${layer.map((id) => this.step(byId.get(id)!))}</div>`,
        )}
      </section>
      ${view.output !== null ? html`<section class="card" aria-label="Result"><h3>Result</h3><p class="answer" tabindex="0">${view.output}</p></section>` : nothing}`;
  }

  private step(step: Step) {
    const href = traceHref(this.agent, step);
    return html`
      <article class="step ${step.state}" role="listitem" data-step=${step.id} aria-label="step ${step.id}: ${step.state}">
        <div class="head"><strong>${step.id}</strong><span class="muted small">${kindLabel[step.kind] ?? step.kind}: ${step.what}</span><span class=${stateClass[step.state] ?? "badge"}>${step.state}</span></div>
        ${step.after.length ? html`<div class="muted small">after ${step.after.join(", ")}</div>` : nothing}
        ${step.output !== undefined ? html`<p class="answer" tabindex="0">${step.output}</p>` : nothing}
        ${step.error !== undefined ? html`<p class="answer" tabindex="0">${step.error}</p>` : nothing}
        ${href ? html`<a class="small" href=${href}>Trace</a>` : step.trace ? html`<span class="muted small">trace: ${step.trace}</span>` : nothing}
      </article>`;
  }
}

customElements.define("pantheon-workflow-graph", PantheonWorkflowGraph);
