import { html, nothing, type TemplateResult } from "lit";
import type { Approval } from "../api";
import { emit, timeAgo } from "./shared";

/** An inbox entry that is an MCP server's question (workers/api/runs.ts `kind: "mcp_question"`). */
export type McpQuestionEntry = Approval & {
  kind: "mcp_question";
  question: string;
  requestedSchema: Record<string, unknown>;
  expiresAt: number;
};

export const isMcpQuestion = (x: Approval): x is McpQuestionEntry => (x as { kind?: string }).kind === "mcp_question";

/** One field of the form, as the MCP spec allows it: a string (maybe an enum), a number or integer, a boolean. */
interface Field {
  name: string;
  type?: string;
  title?: string;
  description?: string;
  format?: string;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const?: unknown; title?: string }[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

function fieldsOf(schema: Record<string, unknown>): { fields: Field[]; required: Set<string> } {
  const properties = (schema.properties ?? {}) as Record<string, Omit<Field, "name">>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return { fields: Object.entries(properties).map(([name, spec]) => ({ ...spec, name })), required };
}

/** The choices of an enum field: `enum` (labelled by `enumNames`) or `oneOf` of `{ const, title }`. */
function choicesOf(field: Field): { value: string; label: string }[] | undefined {
  if (field.enum) return field.enum.map((v, i) => ({ value: String(v), label: field.enumNames?.[i] ?? String(v) }));
  if (field.oneOf?.every((o) => o.const !== undefined))
    return field.oneOf.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));
  return undefined;
}

const inputTypes: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

function input(field: Field, id: string, required: boolean): TemplateResult {
  const choices = choicesOf(field);
  const initial = field.default === undefined ? "" : String(field.default);
  if (choices)
    return html`<select id=${id} name=${field.name} ?required=${required}>
      ${required ? nothing : html`<option value="">—</option>`}
      ${choices.map((c) => html`<option value=${c.value} ?selected=${c.value === initial}>${c.label}</option>`)}
    </select>`;
  if (field.type === "boolean")
    return html`<input type="checkbox" id=${id} name=${field.name} ?checked=${field.default === true} />`;
  if (field.type === "number" || field.type === "integer")
    return html`<input type="number" inputmode="decimal" id=${id} name=${field.name} ?required=${required}
      step=${field.type === "integer" ? "1" : "any"} min=${field.minimum ?? nothing} max=${field.maximum ?? nothing} .value=${initial} />`;
  return html`<input type=${inputTypes[field.format ?? ""] ?? "text"} id=${id} name=${field.name} ?required=${required}
    minlength=${field.minLength ?? nothing} maxlength=${field.maxLength ?? 4096} .value=${initial} />`;
}

/** The form's values as the schema types them; an empty optional field is left out. */
function contentOf(form: HTMLFormElement, fields: Field[]): Record<string, string | number | boolean> {
  const data = new FormData(form);
  const content: Record<string, string | number | boolean> = {};
  for (const field of fields) {
    if (field.type === "boolean") {
      content[field.name] = data.has(field.name);
      continue;
    }
    const raw = String(data.get(field.name) ?? "");
    if (raw === "") continue;
    content[field.name] = field.type === "number" || field.type === "integer" ? Number(raw) : raw;
  }
  return content;
}

/**
 * An MCP server's question in the inbox: its message and a form built from the schema it asked for
 * (strings, numbers, booleans, enums); Send answers `accept` with the values, Decline `decline`.
 *
 * Event (on `host`): `mcp-answer` {agent, runId, callId, action, content?}.
 */
export function mcpQuestionCard(host: HTMLElement, x: McpQuestionEntry, busy: boolean): TemplateResult {
  const { fields, required } = fieldsOf(x.requestedSchema);
  const prefix = `mcp-${x.callId}`;
  const send = (e: Event) => {
    e.preventDefault();
    const content = contentOf(e.target as HTMLFormElement, fields);
    emit(host, "mcp-answer", { agent: x.agent, runId: x.runId, callId: x.callId, action: "accept", content });
  };
  return html`
    <article class="card" aria-label="MCP server ${x.tool} of ${x.agent} asks">
      <div class="row"><strong>${x.agent}</strong><span class="muted">· MCP server</span><code>${x.tool}</code><span class="muted">asks</span>
        <span class="spacer"></span><span class="muted small">${timeAgo(x.requestedAt)}</span></div>
      <p class="question">${x.question}</p>
      <form @submit=${send}>
        ${fields.map((field) => {
          const id = `${prefix}-${field.name}`;
          const must = required.has(field.name);
          const label = `${field.title ?? field.name}${must ? " (required)" : ""}`;
          return field.type === "boolean"
            ? html`<div class="row field">${input(field, id, must)}<label for=${id}>${label}</label></div>
                ${field.description ? html`<p class="muted small">${field.description}</p>` : nothing}`
            : html`<div class="field"><label for=${id}>${label}</label>${input(field, id, must)}
                ${field.description ? html`<p class="muted small">${field.description}</p>` : nothing}</div>`;
        })}
        <div class="actions">
          <button class="primary" type="submit" ?disabled=${busy}>${busy ? "Sending…" : "Send answer"}</button>
          <button class="ghost" type="button" ?disabled=${busy}
            @click=${() => emit(host, "mcp-answer", { agent: x.agent, runId: x.runId, callId: x.callId, action: "decline" })}>Decline</button>
        </div>
      </form>
      ${x.runId ? html`<a class="small" href="#/agents/${encodeURIComponent(x.agent)}/runs/${encodeURIComponent(x.runId)}">Open the run</a>` : nothing}
    </article>`;
}
