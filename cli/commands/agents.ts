// `pantheon agents list | show | create | goals | tick | delete | connect | disconnect | export | import | snapshot | restore`
import { need, output, readJson, readText } from "../arguments.ts";
import type { InferRequestType } from "hono/client";
import { param, UsageError } from "../client.ts";
import { text, type Command, type Context } from "../command.ts";
import { fields, note, oneLine, printJson, table, time } from "../format.ts";
import { snapshotActions } from "./snapshots.ts";
import { agentShowRows } from "../../core/agents/views.ts";

/** `provider:name` → `{ provider, name }`; the name may itself contain ':' (fine-tuned model ids do). */
export function parseModel(value: string) {
  const at = value.indexOf(":");
  if (at <= 0 || at === value.length - 1)
    throw new UsageError(
      `--model takes provider:name (for example openai:gpt-4o-mini or offline:offline), got '${value}'`,
      "agents",
    );
  return { provider: value.slice(0, at), name: value.slice(at + 1) };
}

const modelText = (model: { provider: string; name: string } | undefined | null) =>
  model ? `${model.provider}:${model.name}` : "-";

/** What the API says answers an agent here (`resolvedModel`, core/models/resolve.ts). */
interface Resolution {
  provider: string;
  name: string;
  status: "ok" | "fallback" | "stand-in" | "unavailable";
  reason: string;
  missing?: { secret?: string };
  /** Whose key the answering provider calls with (never the value). */
  key?: "project" | "deployment";
}

/**
 * The model an agent asked for and, when another one answers here, that one and why, with whose key
 * a provider calls: `openai:gpt-4o (project key)`, `openai:gpt-4o → offline (no OPENAI_API_KEY)`,
 * `openai:gpt-4o → none, runs fail (no OPENAI_API_KEY)`.
 */
export function answeringModelText(
  requested: { provider: string; name: string } | undefined | null,
  resolved: Resolution | undefined | null,
): string {
  const asked = modelText(requested);
  const key = resolved?.key ? ` (${resolved.key} key)` : "";
  if (!resolved || resolved.status === "ok") return `${asked}${key}`;
  const why = resolved.missing?.secret ? `no ${resolved.missing.secret}` : resolved.reason;
  if (resolved.status === "unavailable") return `${asked} → none, runs fail (${why})`;
  const answering = resolved.provider === "offline" ? "offline" : modelText(resolved);
  return `${asked} → ${answering}${key} (${resolved.status === "fallback" ? `fallback: ${why}` : why})`;
}

/** The `--goal` values given (one or many), trimmed, empty ones refused. */
function goalsOf(values: Context["values"]): string[] {
  const raw = values.goal;
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : [];
  if (list.some((g) => !g.trim()))
    throw new UsageError('--goal takes some words, e.g. --goal "Review PR #123"', "agents");
  return list.map((g) => g.trim());
}

async function setConnections({ client: { api, send }, args, json }: Context, change: "connect" | "disconnect") {
  const name = need(args, 0, "agent", "agents");
  const others = args.slice(1);
  if (!others.length)
    throw new UsageError(
      `name the agents to ${change}: pantheon agents ${change} ${name} <agent> [<agent> …]`,
      "agents",
    );
  const route = api.api.agents[":name"].connections;
  const { connections } = await send(route.$get(param({ name })));
  const next =
    change === "connect" ? [...new Set([...connections, ...others])] : connections.filter((c) => !others.includes(c));
  const saved = await send(route.$put({ ...param({ name }), json: { connections: next } }));
  if (json) return printJson(saved);
  console.log(`${name} may ask: ${saved.connections.join(", ") || "no one"}.`);
}

const interopFormats = ["openai", "anthropic", "opencode"];

/** A warning of an export or import: a part left out by name (`part`, `names`, `why`), or one field's note (`path`, `message`). */
type FormatWarning = { path?: string; message: string; part?: string; names?: string[]; why?: string };

/** One line per warning: what was left out, by name, and why. */
const warningLine = (w: FormatWarning) =>
  w.part && w.names
    ? `warning: ${w.part} left out (${w.names.join(", ")}): ${w.why}`
    : `warning${w.path ? ` ${w.path}` : ""}: ${w.message}`;

export const agents: Command = {
  name: "agents",
  summary:
    "list, show, create, delete and connect agents; export and import them (OpenAI, Anthropic, OpenCode); snapshot and restore them whole",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "the project's agents with their live status",
      usage: [""],
      async run({ client: { api, send }, json }) {
        const body = await send(api.api.agents.$get());
        if (json) return printJson(body);
        if (!body.agents.length) return console.log("No agents yet. Create one with: pantheon agents create <name>");
        console.log(
          table(
            ["NAME", "STATUS", "MODEL", "LAST ACTIVITY", "DESCRIPTION"],
            body.agents.map((a) => [
              a.name,
              a.status,
              answeringModelText(a.model, a.resolvedModel),
              time(a.lastActivityAt),
              oneLine(a.description, 50),
            ]),
          ),
        );
      },
    },
    {
      name: "show",
      aliases: ["get"],
      summary: "one agent: model (and what answers here), prompt, tools, connections",
      usage: ["<name>"],
      async run({ client: { api, send }, args, json }) {
        const agent = await send(api.api.agents[":name"].$get(param({ name: need(args, 0, "agent", "agents") })));
        if (json) return printJson(agent);
        // The definition's rows come from its declaration (core/agents/views.ts); around them, what the
        // server says of the agent now: its status, what answers here, when it was archived and active.
        const declared: [string, unknown][] = agentShowRows(agent);
        const after = (label: string, row: [string, unknown]) =>
          declared.splice(declared.findIndex(([l]) => l === label) + 1, 0, row);
        after("model", [
          "answers here",
          agent.resolvedModel
            ? `${modelText(agent.resolvedModel)}${agent.resolvedModel.key ? ` with the ${agent.resolvedModel.key} key` : ""} (${agent.resolvedModel.status}: ${agent.resolvedModel.reason})`
            : undefined,
        ]);
        after("goals", ["archived", agent.archivedAt ? time(agent.archivedAt) : undefined]);
        console.log(
          fields([
            ["name", agent.name],
            ["status", agent.status],
            ...declared,
            ["created", time(agent.createdAt)],
            ["updated", time(agent.updatedAt)],
            ["last activity", time(agent.lastActivityAt)],
          ]),
        );
      },
    },
    {
      name: "create",
      summary: "a new agent (a script can define it instead: pantheon script push)",
      usage: [
        "<name> [--description <text>] [--system-prompt <text>] [--model provider:name] [--role <text>] [--goal <text> …]",
      ],
      options: {
        description: { type: "string", help: "what the agent is for" },
        role: { type: "string", help: 'its role, e.g. "code reviewer"' },
        goal: {
          type: "string",
          multiple: true,
          help: 'a standing goal (repeat for more), e.g. "Review PR #123"; pantheon agents tick works toward them',
        },
        "system-prompt": { type: "string", help: "the agent's instructions" },
        model: {
          type: "string",
          help: "provider:name, e.g. openai:gpt-4o-mini (default: the server's PANTHEON_DEFAULT_PROVIDER, offline locally)",
        },
      },
      async run({ client: { api, send }, args, values, json }) {
        const input: InferRequestType<typeof api.api.agents.$post>["json"] = {
          name: need(args, 0, "agent to create", "agents"),
        };
        const description = text(values, "description");
        const prompt = text(values, "system-prompt");
        const model = text(values, "model");
        if (description !== undefined) input.description = description;
        if (prompt !== undefined) input.systemPrompt = prompt;
        if (model !== undefined) input.model = parseModel(model);
        const role = text(values, "role");
        const goals = goalsOf(values);
        if (role !== undefined) input.role = role;
        if (goals.length) input.goals = goals;
        const agent = await send(api.api.agents.$post({ json: input }));
        if (json) return printJson(agent);
        console.log(
          `Created agent ${agent.name} (model ${modelText(agent.model)}${agent.goals?.length ? `, ${agent.goals.length} goal${agent.goals.length === 1 ? "" : "s"}` : ""}). Talk to it: pantheon chat ${agent.name}${agent.goals?.length ? `; work toward its goals: pantheon agents tick ${agent.name}` : ""}`,
        );
      },
    },
    {
      name: "goals",
      summary: "an agent's standing goals: show them, or set them (--goal, repeated) or clear them (--clear)",
      usage: ["<agent> [--goal <text> …] [--clear]"],
      options: {
        goal: { type: "string", multiple: true, help: "a goal (repeat for more): replaces the agent's goals" },
        clear: { type: "boolean", help: "remove every goal" },
      },
      async run({ client: { api, send }, args, values, json }) {
        const name = need(args, 0, "agent", "agents");
        const goals = goalsOf(values);
        if (goals.length && values.clear) throw new UsageError("give --goal or --clear, not both", "agents");
        const route = api.api.agents[":name"];
        const agent =
          goals.length || values.clear
            ? await send(route.$patch({ ...param({ name }), json: { goals } }))
            : await send(route.$get(param({ name })));
        if (json) return printJson({ name: agent.name, goals: agent.goals ?? [] });
        if (!agent.goals?.length)
          return console.log(
            `${agent.name} has no standing goals. Set some: pantheon agents goals ${agent.name} --goal "…"`,
          );
        console.log(agent.goals.map((g) => `- ${g}`).join("\n"));
      },
    },
    {
      name: "tick",
      summary: "one run of an agent toward its standing goals (its reply is printed and kept in its history)",
      usage: ["<agent> [--session <id>]"],
      options: {
        session: { type: "string", help: "the session its reply goes to (default: the agent's default session)" },
      },
      async run({ client: { api, send }, args, values, json }) {
        const name = need(args, 0, "agent", "agents");
        const session = text(values, "session");
        const outcome = await send(
          api.api.agents[":name"].tick.$post({ ...param({ name }), json: session ? { session } : {} }),
        );
        if (json) return printJson(outcome);
        if (outcome.reply) console.log(outcome.reply.content);
        note(`run ${outcome.runId}: ${outcome.status}${outcome.error ? ` (${outcome.error})` : ""}`);
        return outcome.status === "completed" ? undefined : 1;
      },
    },
    {
      name: "delete",
      summary: "delete an agent and forget its memory",
      usage: ["<name>"],
      async run({ client: { api, send }, args, json }) {
        const name = need(args, 0, "agent to delete", "agents");
        await send(api.api.agents[":name"].$delete(param({ name })));
        if (json) return printJson({ deleted: name });
        console.log(`Deleted agent ${name} and its memory.`);
      },
    },
    {
      name: "connect",
      summary: "let an agent ask other agents (adds to its connections)",
      usage: ["<agent> <other> [<other> …]"],
      run: (context) => setConnections(context, "connect"),
    },
    {
      name: "disconnect",
      summary: "stop an agent asking other agents",
      usage: ["<agent> <other> [<other> …]"],
      run: (context) => setConnections(context, "disconnect"),
    },
    {
      name: "export",
      summary:
        "an agent as an OpenAI Agents SDK / Responses config, an Anthropic Messages config, or an OpenCode agent file",
      usage: ["<agent> --format openai|anthropic|opencode [--out <file>]"],
      options: {
        format: { type: "string", help: "openai, anthropic or opencode (markdown with frontmatter)" },
        out: { type: "string", help: "write to this file instead of stdout" },
      },
      async run({ client: { request }, args, values }) {
        const name = need(args, 0, "agent to export", "agents");
        const format = text(values, "format");
        if (!format || !interopFormats.includes(format))
          throw new UsageError(`--format is one of ${interopFormats.join(", ")}`, "agents");
        const body = await request<{ config?: unknown; file?: string; warnings?: FormatWarning[] }>(
          "GET",
          `/api/agents/${encodeURIComponent(name)}/export`,
          { query: { format }, accept: "application/json" },
        );
        // The configuration itself is the output (a file another SDK reads); what it could not hold goes to stderr.
        output(typeof body.file === "string" ? body.file : JSON.stringify(body.config, null, 2), text(values, "out"));
        for (const w of body.warnings ?? []) note(warningLine(w));
      },
    },
    {
      name: "import",
      summary:
        "make an agent (with a script) from an OpenAI or Anthropic configuration file, or an OpenCode agent file",
      usage: ["<file.json|file.md> --format openai|anthropic|opencode --name <agent>"],
      options: {
        format: {
          type: "string",
          help: "openai (Agents SDK / Responses: instructions, model, tools), anthropic (Messages: system, tools) or opencode (an agent file: markdown with YAML front matter)",
        },
        name: { type: "string", help: "the new agent's name" },
      },
      async run({ client: { request }, args, values, json }) {
        const file = need(args, 0, "configuration file", "agents");
        const format = text(values, "format");
        const name = text(values, "name");
        if (!format || !interopFormats.includes(format))
          throw new UsageError(`--format is one of ${interopFormats.join(", ")}`, "agents");
        if (!name) throw new UsageError("--name names the agent to create", "agents");
        // An OpenCode agent file is markdown: its text goes as it is.
        const config = format === "opencode" ? readText(file, "agents") : readJson(file, "agents");
        const result = await request<{ agent: { name: string }; warnings?: FormatWarning[] }>(
          "POST",
          "/api/agents/import",
          { query: { format }, json: { name, config } },
        );
        if (json) return printJson(result);
        console.log(`Imported ${file} as agent ${result.agent?.name ?? name}.`);
        // What the file had that Pantheon has no place for: on stderr, as export's are.
        for (const w of result.warnings ?? []) note(warningLine(w));
      },
    },
    ...snapshotActions,
  ],
};
