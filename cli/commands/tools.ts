// `pantheon tools list | import | export`: an agent's tools, and tools in MCP, OpenAI and
// Anthropic formats in and out (GET /api/agents/:name/tools?format=…, POST …/tools/import).
// `pantheon tools add | scripts | remove`: the project's script tools (POST /api/projects/:slug/tools).
import { ApiError, param, UsageError, type Client } from "../client.ts";
import { text, type Command, type Context } from "../command.ts";
import { note, oneLine, printJson, table } from "../format.ts";
import { need, output, readJson, readText } from "../arguments.ts";

const formats = ["mcp", "openai", "anthropic"];

function formatOf(values: Record<string, unknown>, required: boolean): string | undefined {
  const format = text(values as never, "format");
  if (format === undefined && !required) return undefined;
  if (!format || !formats.includes(format))
    throw new UsageError(`--format is one of ${formats.join(", ")}${format ? `, got '${format}'` : ""}`, "tools");
  return format;
}

interface Converted {
  format: string;
  tools: unknown[];
  warnings: ({ path?: string; message: string } | string)[];
}

/** Tools in another format; a server that predates tool interop answers its own list and ignores `format`. */
async function converted(request: Client["request"], name: string, format: string): Promise<Converted> {
  const body = await request<Converted>("GET", `/api/agents/${encodeURIComponent(name)}/tools`, { query: { format } });
  if (body?.format !== format)
    throw new ApiError(501, {
      code: "not_supported",
      message: `this server does not convert tools (it ignored ?format=${format}): it predates tool interop`,
    });
  return body;
}

const current = (context: Context) => text(context.values, "project") ?? context.config.project ?? "default";
const scriptsPath = (slug: string) => `/api/projects/${encodeURIComponent(slug)}/tools`;

interface ScriptToolView {
  name: string;
  description: string;
  version: number;
  hosts: string[];
  secrets: string[];
  tools: string[];
}

const warningText = (w: Converted["warnings"][number]) =>
  typeof w === "string" ? w : `${w.path ? `${w.path}: ` : ""}${w.message}`;

export const tools: Command = {
  name: "tools",
  summary:
    "an agent's tools; import and export them as MCP, OpenAI or Anthropic tool definitions; the project's script tools",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "the agent's tools (name, runtime, description), or in another format with --format",
      usage: ["<agent> [--format mcp|openai|anthropic]"],
      options: {
        format: { type: "string", help: "mcp, openai or anthropic: the tools as that format writes them (JSON)" },
      },
      async run({ client: { api, send, request }, args, values, json }) {
        const name = need(args, 0, "agent", "tools");
        const format = formatOf(values, false);
        if (format) {
          const body = await converted(request, name, format);
          printJson(body.tools);
          for (const w of body.warnings ?? []) note(`warning: ${warningText(w)}`);
          return;
        }
        const body = await send(api.api.agents[":name"].tools.$get({ ...param({ name }), query: {} }));
        if (json) return printJson(body);
        console.log(
          table(
            ["NAME", "RUNTIME", "DESCRIPTION"],
            (body?.tools ?? []).map((t) => [t.name, t.runtime, oneLine(t.description, 70)]),
          ),
        );
      },
    },
    {
      name: "export",
      summary: "the agent's tools as MCP (a tools/list result), OpenAI function tools or Anthropic tools",
      usage: ["<agent> --format mcp|openai|anthropic [--out <file>]"],
      options: {
        format: { type: "string", help: "mcp, openai or anthropic" },
        out: { type: "string", help: "write to this file instead of stdout" },
      },
      async run({ client: { request }, args, values }) {
        const name = need(args, 0, "agent", "tools");
        const format = formatOf(values, true)!;
        const body = await converted(request, name, format);
        output(JSON.stringify(body.tools, null, 2), text(values, "out"));
        for (const w of body.warnings ?? []) note(`warning: ${warningText(w)}`);
      },
    },
    {
      name: "import",
      summary: "tool definitions from a file: HTTP tools when they carry an endpoint, else declared (with a warning)",
      usage: ["<agent> <file.json> --format mcp|openai|anthropic"],
      options: {
        format: { type: "string", help: "mcp (a tools/list result), openai (function tools) or anthropic (tools)" },
      },
      async run({ client: { request }, args, values, json }) {
        const name = need(args, 0, "agent", "tools");
        const file = need(args, 1, "file with the tool definitions", "tools");
        const format = formatOf(values, true);
        const body = await request<{
          imported: { name: string; runtime: string }[];
          warnings: { path: string; message: string }[];
        }>("POST", `/api/agents/${encodeURIComponent(name)}/tools/import`, {
          json: { format, tools: readJson(file, "tools") },
        });
        if (json) return printJson(body);
        console.log(
          `Imported ${body.imported.length} tool${body.imported.length === 1 ? "" : "s"} into ${name}${body.imported.length ? `: ${body.imported.map((t) => `${t.name} (${t.runtime})`).join(", ")}` : ""}.`,
        );
        for (const w of body.warnings) note(`warning: ${w.path}: ${w.message}`);
      },
    },
    {
      name: "add",
      summary: "a script tool from a TypeScript file to the project (compiled when saved; again = next version)",
      usage: ["<file.ts>"],
      async run(context) {
        const file = need(context.args, 0, "script file", "tools");
        const body = await context.client.request<{ tool: ScriptToolView; agents: string[] }>(
          "POST",
          scriptsPath(current(context)),
          { json: { source: readText(file, "tools") } },
        );
        if (context.json) return printJson(body);
        const { tool } = body;
        console.log(
          `Saved script tool ${tool.name} (version ${tool.version}). Agents that list it in their tools may use it${body.agents.length ? `: ${body.agents.join(", ")}` : ""}.`,
        );
      },
    },
    {
      name: "scripts",
      summary: "the project's script tools: name, version, hosts, secrets, description",
      usage: [""],
      async run(context) {
        const body = await context.client.request<{ tools: ScriptToolView[] }>("GET", scriptsPath(current(context)));
        if (context.json) return printJson(body);
        if (!body.tools.length) return console.log("No script tools. Add one with: pantheon tools add <file.ts>");
        console.log(
          table(
            ["NAME", "VERSION", "HOSTS", "SECRETS", "DESCRIPTION"],
            body.tools.map((t) => [
              t.name,
              String(t.version),
              t.hosts.join(",") || "(none)",
              t.secrets.join(",") || "(none)",
              oneLine(t.description, 50),
            ]),
          ),
        );
      },
    },
    {
      name: "remove",
      summary: "a script tool no agent lists",
      usage: ["<name>"],
      async run(context) {
        const name = need(context.args, 0, "script tool's name", "tools");
        await context.client.request("DELETE", `${scriptsPath(current(context))}/${encodeURIComponent(name)}`);
        if (!context.json) console.log(`Removed script tool ${name}.`);
      },
    },
  ],
};
