import { compileScript, compileScriptJson, printScript, type ActorScript } from "../dsl";
import type { ProjectFileAgent } from "../projects/file";
import { profileFromScript } from "./from-script";

/** Key-sorted JSON, so two scripts compare equal whatever order their keys were written in. */
const canonical = (value: unknown) =>
  JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

const compiled = (source: string): ActorScript =>
  source.trimStart().startsWith("{")
    ? compileScriptJson(JSON.parse(source) as unknown).script
    : compileScript(source).script;

/**
 * A script's source with its actor named `name`, everything else as it was. DSL source keeps its
 * layout and comments (only the actor's name is rewritten) when that compiles to the same script
 * under the new name, else it is printed anew; ActorScript JSON is rewritten with the new `name`.
 * A source that does not compile is answered as it is (the import that reads it names its problems).
 * @example
 * renameScriptSource('; keeps\n(actor "keeper" (description "Keeps."))', "keeper2")
 * // '; keeps\n(actor "keeper2" (description "Keeps."))'
 */
export function renameScriptSource(source: string, name: string): string {
  let script: ActorScript;
  try {
    script = compiled(source);
  } catch {
    return source;
  }
  if (script.name === name) return source;
  const wanted = { ...script, name };
  if (source.trimStart().startsWith("{")) {
    const json = JSON.parse(source) as Record<string, unknown>;
    return JSON.stringify({ ...json, name }, null, source.includes("\n") ? 2 : undefined);
  }
  const edited = source.replace(
    /(\(\s*actor\s+)"(?:[^"\\]|\\.)*"/,
    (_, head: string) => `${head}${JSON.stringify(name)}`,
  );
  try {
    if (canonical(compiled(edited)) === canonical(wanted)) return edited;
  } catch {
    // The first `(actor "…"` was not the script's own (in a string, say): printed anew below.
  }
  return printScript(wanted);
}

/**
 * A project file's entry for an agent, made the entry of agent `name`: its script's actor renamed,
 * and its instructions dropped when they were only what the old script derived (`You are keeper.`),
 * so the renamed script derives them under the new name. Instructions a person wrote are kept.
 * @example
 * renamedEntry(header.config, "scout-copy") // restoring a snapshot under a new name
 */
export function renamedEntry(entry: ProjectFileAgent, name: string): ProjectFileAgent {
  const source = entry.pantheon?.script;
  if (source === undefined) return entry;
  const renamed = renameScriptSource(source, name);
  if (renamed === source) return entry;
  const { instructions, ...pantheon } = entry.pantheon!;
  const derived = profileFromScript(compiled(source)).systemPrompt;
  return {
    ...entry,
    pantheon: {
      ...pantheon,
      script: renamed,
      ...(instructions !== undefined && instructions !== derived ? { instructions } : {}),
    },
  };
}
