// `pantheon script push | pull | check`: an agent's script (the DSL or its JSON form).
import { readFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { note, printJson } from "../format.ts";
import { need, output, readText } from "../arguments.ts";

/** The DSL goes as `text/x-pantheon`, an ActorScript object as JSON; the file's extension decides. */
export function scriptMediaType(file: string): "text/x-pantheon" | "application/json" {
  const ext = extname(file).toLowerCase();
  if (ext === ".pnth") return "text/x-pantheon";
  if (ext === ".json") return "application/json";
  throw new UsageError(`'${file}' is neither a .pnth (DSL) nor a .json (ActorScript) file`, "script");
}

interface Located {
  line?: number;
  column?: number;
  form?: string;
  message?: string;
}

/** `file:line:col: message`, the shape editors and terminals link; a JSON script's problems have no line, so their path is named. */
export function locatedLine(file: string, where: Located, kind?: "warning"): string {
  const prefix = kind ? `${kind}: ` : "";
  if (where.line) return `${file}:${where.line}:${where.column ?? 0}: ${prefix}${where.message ?? ""}`;
  return `${file}: ${prefix}${where.form ? `${where.form}: ` : ""}${where.message ?? ""}`;
}

export const script: Command = {
  name: "script",
  summary: "push, pull or check an agent's script (the DSL, or its JSON form)",
  actions: [
    {
      name: "push",
      aliases: ["put"],
      summary: "set an agent's script from a file (creates the agent when it does not exist)",
      usage: ["<agent> <file.pnth|file.json>"],
      async run({ client: { api, send }, args, json }) {
        const agent = need(args, 0, "agent", "script");
        const file = need(args, 1, "script file: pantheon script push <agent> <file.pnth|file.json>", "script");
        const type = scriptMediaType(file);
        let source = readText(file, "script");
        if (type === "text/x-pantheon" && source.includes(":path")) {
          // The API has no files: each (tool … :path "x.ts") goes as :source, read beside the script.
          const { inlineToolPaths, isScriptError } = await import("../../core/dsl/index.ts");
          try {
            source = inlineToolPaths(source, (path) => readFileSync(resolve(dirname(file), path), "utf8"));
          } catch (error) {
            if (!isScriptError(error)) throw error;
            throw new UsageError(locatedLine(basename(file), error.issues[0] ?? {}), "script");
          }
        }
        // The route reads the body itself (DSL or JSON), so it goes in as it is, with its media type.
        const body = await send(
          api.api.agents[":name"].script.$put(param({ name: agent }), {
            headers: { "content-type": type },
            init: { body: source },
          }),
        );
        if (json) return printJson(body);
        console.log(
          `Script for ${agent} saved (${body.format ?? (type === "application/json" ? "json" : "pantheon")}).`,
        );
        for (const w of body.warnings ?? []) console.log(locatedLine(basename(file), w, "warning"));
      },
    },
    {
      name: "pull",
      aliases: ["get"],
      summary: "print an agent's script source (or write it to a file)",
      usage: ["<agent> [--out <file>]"],
      options: { out: { type: "string", help: "write the source to this file instead of stdout" } },
      async run({ client: { api, send }, args, values, json }) {
        const agent = need(args, 0, "agent", "script");
        const body = await send(api.api.agents[":name"].script.$get(param({ name: agent })));
        if (json) return printJson(body);
        output(body.source, text(values, "out"));
        for (const w of body.warnings ?? []) note(locatedLine(agent, w, "warning"));
      },
    },
    {
      name: "check",
      summary: "compile script files locally (no server): each problem as file:line:col: message; exit 1 on an error",
      usage: ["<file.pnth|file.json> [<file> …]"],
      offline: true,
      async run({ args, json }) {
        if (!args.length) throw new UsageError("name the script files to check", "script");
        // Loaded only here: the compiler is the server's own (core/dsl), run in this process.
        const { compileScript, compileScriptJson, isScriptError } = await import("../../core/dsl/index.ts");
        const results: { file: string; ok: boolean; issues: Located[]; warnings: Located[] }[] = [];
        for (const file of args) {
          const type = scriptMediaType(file);
          const source = readText(file, "script");
          try {
            let compiled: ReturnType<typeof compileScript>;
            if (type === "application/json") {
              let value: unknown;
              try {
                value = JSON.parse(source);
              } catch (error) {
                results.push({
                  file,
                  ok: false,
                  issues: [{ message: `not JSON: ${(error as Error).message}` }],
                  warnings: [],
                });
                continue;
              }
              compiled = compileScriptJson(value);
            } else compiled = compileScript(source);
            results.push({ file, ok: true, issues: [], warnings: compiled.warnings });
          } catch (error) {
            if (!isScriptError(error)) throw error;
            results.push({ file, ok: false, issues: error.issues, warnings: [] });
          }
        }
        const ok = results.every((r) => r.ok);
        if (json) {
          printJson({ ok, files: results });
          return ok ? 0 : 1;
        }
        for (const r of results) {
          for (const issue of r.issues) console.log(locatedLine(r.file, issue));
          for (const warning of r.warnings) console.log(locatedLine(r.file, warning, "warning"));
        }
        const failed = results.filter((r) => !r.ok).length;
        note(
          failed
            ? `${failed} of ${results.length} file${results.length === 1 ? "" : "s"} did not compile.`
            : `${results.length === 1 ? "It compiles" : `All ${results.length} compile`}.`,
        );
        return ok ? 0 : 1;
      },
    },
  ],
};
