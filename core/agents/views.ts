// What `pantheon agents show` prints of an agent's definition, derived from its one declaration
// (./definition.ts): a row for every field declared `views.cliShow: "shows"`. A field declared so
// without a row of its own below still gets one (its `what` and its value), so the declaration alone
// decides what the table holds; test/interop/agent-views.test.ts holds every such field's value in it.
import { declaredFields, fieldValue } from "./definition";

/** The agent as the API answers it, read loosely (the CLI prints what came back). */
export type ShownAgent = { name: string } & Record<string, unknown>;

/** The agent's value at a declared path (`runtime.tools`). */
const valueAt = (agent: ShownAgent, path: string) =>
  fieldValue(agent as unknown as Parameters<typeof fieldValue>[0], path);

type Row = { label: string; paths: readonly string[]; text: (agent: ShownAgent) => string };

const list = (value: unknown, join: string, prefix = "") =>
  Array.isArray(value) && value.length ? value.map((v) => `${prefix}${String(v)}`).join(join) : "-";

/** A value no row below reads: text as it is, a list joined, anything else as JSON. */
function plain(value: unknown): string {
  if (value === undefined || value === null || value === "") return "-";
  if (Array.isArray(value)) return list(value, ", ");
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The table's own rows, in the order a person reads them; one row may show several fields. */
const rows: readonly Row[] = [
  {
    label: "model",
    paths: ["model.provider", "model.name"],
    text: (a) => {
      const model = a.model as { provider?: string; name?: string } | undefined;
      return model?.provider ? `${model.provider}:${model.name}` : "-";
    },
  },
  { label: "description", paths: ["description"], text: (a) => plain(a.description) },
  { label: "role", paths: ["role"], text: (a) => plain(a.role) },
  { label: "goals", paths: ["goals"], text: (a) => list(a.goals, "\n", "- ") },
  { label: "system prompt", paths: ["systemPrompt"], text: (a) => plain(a.systemPrompt) },
  { label: "tools", paths: ["runtime.tools"], text: (a) => list(valueAt(a, "runtime.tools"), ", ") },
  { label: "connections", paths: ["connections"], text: (a) => list(a.connections, ", ") },
  {
    label: "script",
    paths: ["script"],
    text: (a) =>
      a.script
        ? `yes: actor '${(a.script as { name?: string }).name ?? a.name}' (pantheon script pull ${a.name})`
        : "no",
  },
];

/** The declared paths `agents show` prints, and the row of each. */
export function cliShownFields(): Array<{ path: string; label: string }> {
  const shown = declaredFields().filter(([, d]) => d.views.cliShow === "shows");
  return shown.map(([path, declaration]) => ({
    path,
    label: rows.find((r) => r.paths.includes(path))?.label ?? declaration.what,
  }));
}

/**
 * The rows `pantheon agents show` prints for the agent's declared fields, as `[label, text]`.
 * @example
 * agentShowRows({ name: "scout", model: { provider: "offline", name: "offline" }, goals: ["Ship"] })
 * // [["model", "offline:offline"], …, ["goals", "- Ship"], …]
 */
export function agentShowRows(agent: ShownAgent): Array<[label: string, text: string]> {
  const shown = cliShownFields();
  const own = rows.filter((r) => r.paths.some((p) => shown.some((s) => s.path === p)));
  const others = declaredFields().filter(
    ([path, d]) => d.views.cliShow === "shows" && !rows.some((r) => r.paths.includes(path)),
  );
  return [
    ...own.map((r) => [r.label, r.text(agent)] as [string, string]),
    ...others.map(([path, d]) => [d.what, plain(valueAt(agent, path))] as [string, string]),
  ];
}
