import { LitElement, css, html, nothing } from "lit";
import type { AppState } from "../state";
import type { ToolSpec } from "../api";
import type { JsonSchema, Loadable } from "../types";
import { base, emit, pretty, prettyOutput } from "./shared";
import "./mcp-servers";

/**
 * Lists an agent's tools and calls one by hand, with a form generated from its JSON Schema.
 *
 * Events: `invoke-tool` {agent, tool, args}; picking a tool is a link (`#/agents/:name/tools/:tool`).
 */
export class PantheonToolRunner extends LitElement {
  static override properties = {
    agent: { type: String },
    selected: { type: String },
    tools: { attribute: false },
    run: { attribute: false },
    formError: { state: true },
  };
  declare agent: string;
  declare selected: string;
  declare tools: Loadable<ToolSpec[]>;
  declare run: AppState["toolRun"];
  declare formError: string | null;

  constructor() {
    super();
    this.agent = "";
    this.selected = "";
    this.tools = { status: "idle" };
    this.run = null;
    this.formError = null;
  }

  static override styles = [
    base,
    css`
    .req { color: var(--danger); }
    nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; padding: 0; margin: 0 0 1rem; }
    nav a { display: inline-flex; align-items: center; min-height: 44px; padding: .4rem .8rem; border-radius: 999px; border: 1px solid var(--border);
      background: var(--surface); color: var(--text); text-decoration: none; font-weight: 600; font-size: .9rem; }
    nav a[aria-current="page"] { background: var(--accent); border-color: var(--accent); color: var(--accent-contrast); }
    .tool-head { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
    .tool-head h3 { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
    .result pre { max-height: 24rem; }
  `,
  ];

  private submit(e: Event, tool: ToolSpec) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const props = schemaOf(tool).properties ?? {};
    const args: Record<string, unknown> = {};
    try {
      for (const [key, schema] of Object.entries(props)) {
        const el = form.elements.namedItem(key) as HTMLInputElement | null;
        if (!el) continue;
        const value = readField(el, schema);
        if (value !== undefined) args[key] = value;
      }
    } catch (error) {
      this.formError = (error as Error).message;
      return;
    }
    this.formError = null;
    emit(this, "invoke-tool", { agent: this.agent, tool: tool.name, args });
  }

  override render() {
    const t = this.tools;
    const list = t.status === "ready" ? t.data : [];
    const tool = list.find((x) => x.name === this.selected) ?? list[0];
    return html`
      <p><a href="#/agents/${encodeURIComponent(this.agent)}">← ${this.agent}</a></p>
      <h2>Run a tool</h2>
      <pantheon-mcp-servers .agent=${this.agent}></pantheon-mcp-servers>
      ${t.status === "error" ? html`<div class="alert error" role="alert">${t.error}</div>` : nothing}
      ${t.status === "loading" ? html`<p class="muted">Loading tools…</p>` : nothing}
      ${t.status === "ready" && list.length === 0 ? html`<p class="muted">This agent has no tools.</p>` : nothing}
      ${
        tool
          ? html`
        <nav aria-label="Tools of ${this.agent}"><ul>${list.map(
          (x) => html`<li><a href="#/agents/${encodeURIComponent(this.agent)}/tools/${encodeURIComponent(x.name)}"
          aria-current=${x.name === tool.name ? "page" : "false"}>${x.name}</a></li>`,
        )}</ul></nav>
        <form class="card" @submit=${(e: Event) => this.submit(e, tool)} aria-label="Arguments for ${tool.name}">
          <div class="tool-head"><h3>${tool.name}</h3>${tool.runtime ? html`<span class="badge">${tool.runtime}</span>` : nothing}</div>
          ${tool.description ? html`<p class="muted">${tool.description}</p>` : nothing}
          ${tool.requiresApproval ? html`<p class="alert info">This tool waits for a person's approval, also when it is run by hand here: decide it in Approvals.</p>` : nothing}
          ${Object.entries(schemaOf(tool).properties ?? {}).map(([k, s]) => this.field(k, s, schemaOf(tool).required?.includes(k) ?? false))}
          ${Object.keys(schemaOf(tool).properties ?? {}).length === 0 ? html`<p class="muted small">No arguments.</p>` : nothing}
          ${this.formError ? html`<div class="alert error" role="alert">${this.formError}</div>` : nothing}
          <button class="primary" type="submit" ?disabled=${this.run?.busy ?? false}>${this.run?.busy ? "Running…" : `Run ${tool.name}`}</button>
        </form>
        ${
          this.run && this.run.tool === tool.name && !this.run.busy
            ? html`
          <section class="card result" style="margin-top:1rem" aria-live="polite" aria-label="Result">
            ${this.run.error ? html`<div class="alert error" role="alert">${this.run.error}</div>` : nothing}
            ${this.run.result && "pending" in this.run.result ? html`<div class="alert info" role="status">Waiting for approval (run ${this.run.result.runId}): decide it in Approvals.</div>` : nothing}
            ${this.run.result && "waiting" in this.run.result ? html`<div class="alert info" role="status">Asked; the answer arrives later (run ${this.run.result.runId}).</div>` : nothing}
            ${
              this.run.result && "ok" in this.run.result
                ? html`
              <div class="tool-head"><span class=${this.run.result.ok ? "badge ok" : "badge bad"}>${this.run.result.ok ? "ok" : "error"}</span>
                <strong>${this.run.result.ok ? "Result" : "The tool reported an error"}</strong><span class="muted small">${this.run.result.ms ?? 0} ms</span></div>
              <pre tabindex="0" aria-label="Output of ${tool.name}">${prettyOutput(this.run.result.ok ? this.run.result.output : this.run.result.error)}</pre>
              ${this.run.result.ok && this.run.result.truncated ? html`<p class="small muted">The output was cut to the tool's size limit.</p>` : nothing}`
                : nothing
            }
          </section>`
            : nothing
        }`
          : nothing
      }`;
  }

  private field(key: string, s: JsonSchema, required: boolean) {
    const id = `arg-${key}`;
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    const label = html`<label for=${id}>${s.title ?? key}${required ? html` <span class="req" aria-hidden="true">*</span>` : nothing}</label>`;
    const hint = s.description ? html`<div class="hint" id="${id}-hint">${s.description}</div>` : nothing;
    const described = s.description ? `${id}-hint` : undefined;
    if (s.enum) {
      return html`<div class="field">${label}<select id=${id} name=${key} ?required=${required} aria-describedby=${described ?? ""}>
        ${required ? nothing : html`<option value="">—</option>`}
        ${s.enum.map((v) => html`<option value=${JSON.stringify(v)} ?selected=${v === s.default}>${String(v)}</option>`)}</select>${hint}</div>`;
    }
    switch (type) {
      case "boolean":
        return html`<div class="field row"><input type="checkbox" id=${id} name=${key} ?checked=${s.default === true}>${label}${hint}</div>`;
      case "number":
      case "integer":
        return html`<div class="field">${label}<input type="number" id=${id} name=${key} ?required=${required} step=${type === "integer" ? "1" : "any"}
          min=${s.minimum ?? ""} max=${s.maximum ?? ""} .value=${s.default !== undefined ? String(s.default) : ""} aria-describedby=${described ?? ""}>${hint}</div>`;
      case "object":
      case "array":
        return html`<div class="field">${label}<textarea id=${id} name=${key} rows="4" ?required=${required} data-json="true"
          placeholder=${type === "array" ? "[]" : "{}"} aria-describedby=${described ?? ""}>${s.default !== undefined ? pretty(s.default) : ""}</textarea>
          <div class="hint">JSON</div>${hint}</div>`;
      default:
        return html`<div class="field">${label}<input id=${id} name=${key} ?required=${required} minlength=${s.minLength ?? ""} maxlength=${s.maxLength ?? ""}
          .value=${typeof s.default === "string" ? s.default : ""} aria-describedby=${described ?? ""}>${hint}</div>`;
    }
  }
}

/** A tool's parameters are JSON Schema; the API types them as plain JSON. */
const schemaOf = (tool: ToolSpec): JsonSchema => tool.parameters as JsonSchema;

function readField(el: HTMLInputElement, s: JsonSchema): unknown {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (s.enum) return el.value === "" ? undefined : JSON.parse(el.value);
  if (type === "boolean") return el.checked;
  if (el.value === "") return undefined;
  if (type === "number" || type === "integer") return Number(el.value);
  if (type === "object" || type === "array") {
    try {
      return JSON.parse(el.value);
    } catch {
      throw new Error(`${el.name} must be valid JSON.`);
    }
  }
  return el.value;
}

customElements.define("pantheon-tool-runner", PantheonToolRunner);
