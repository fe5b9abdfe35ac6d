// `pantheon script get | put`
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { param, UsageError } from "../client.mjs";
import { printJson } from "../format.mjs";

/**
 * The DSL goes as `text/x-pantheon`, an ActorScript object as JSON; the file's extension decides.
 * @param {string} file
 */
export function scriptMediaType(file) {
  const ext = extname(file).toLowerCase();
  if (ext === ".pnth") return "text/x-pantheon";
  if (ext === ".json") return "application/json";
  throw new UsageError(`'${file}' is neither a .pnth (DSL) nor a .json (ActorScript) file`, "script");
}

const warningLine = (/** @type {{ line?: number, column?: number, message?: string }} */ w) => `  warning${w.line ? ` line ${w.line}:${w.column ?? 0}` : ""}: ${w.message ?? JSON.stringify(w)}`;

export const script = {
  name: "script",
  summary: "show or set an agent's script (the DSL or its JSON form)",
  usage: ["pantheon script get <agent>", "pantheon script put <agent> <file.pnth|file.json>"],
  options: {},
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, json }) {
    const [action, agent, file] = args;
    if (!agent || (action !== "get" && action !== "put")) throw new UsageError("use: pantheon script get <agent>  or  pantheon script put <agent> <file>", "script");
    if (action === "get") {
      const body = await send(api.api.agents[":name"].script.$get(param({ name: agent })));
      if (json) return printJson(body);
      process.stdout.write(body.source.endsWith("\n") ? body.source : `${body.source}\n`);
      for (const w of body.warnings ?? []) process.stderr.write(`${warningLine(w)}\n`);
      return;
    }
    if (!file) throw new UsageError("name the script file: pantheon script put <agent> <file.pnth|file.json>", "script");
    const type = scriptMediaType(file);
    let source;
    try {
      source = readFileSync(file, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read '${file}': ${error.code === "ENOENT" ? "no such file" : error.message}`, "script");
    }
    // The route reads the body itself (DSL or JSON), so it goes in as it is, with its media type.
    const body = await send(api.api.agents[":name"].script.$put(param({ name: agent }), { headers: { "content-type": type }, init: { body: source } }));
    if (json) return printJson(body);
    console.log(`Script for ${agent} saved (${body.format ?? (type === "application/json" ? "json" : "pantheon")}).`);
    for (const w of body.warnings ?? []) console.log(warningLine(w));
  },
};
