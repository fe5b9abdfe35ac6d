/**
 * The explicit directives a person can type to the offline model, since it cannot infer intent:
 * `/tool <name> <json-args>`, `/ask <agent> <text>`, `/tools`.
 */
export type Directive =
  | { kind: "tool"; name: string; arguments: Record<string, unknown> }
  | { kind: "list_tools" }
  | { kind: "syntax_error"; message: string };

export const toolSyntax = '/tool <name> <json-args>, for example /tool clock.now {"zone":"UTC"}';
export const askSyntax = "/ask <agent> <text>, for example /ask researcher what changed this week?";

export function parseDirective(text: string): Directive | undefined {
  const trimmed = text.trim();
  if (/^\/tools\s*$/i.test(trimmed)) return { kind: "list_tools" };

  const tool = /^\/tool(?=\s|$)(?:\s+(\S+))?\s*([\s\S]*)$/i.exec(trimmed);
  if (tool) {
    const name = tool[1];
    if (!name) return { kind: "syntax_error", message: `/tool needs a tool name. Write it as ${toolSyntax}.` };
    const argsText = (tool[2] ?? "").trim();
    if (argsText === "") return { kind: "tool", name, arguments: {} };
    let args: unknown;
    try {
      args = JSON.parse(argsText);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        kind: "syntax_error",
        message: `I could not read the arguments of /tool ${name} as JSON (${reason}). Write it as ${toolSyntax}.`,
      };
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return {
        kind: "syntax_error",
        message: `The arguments of /tool ${name} must be a JSON object. Write it as ${toolSyntax}.`,
      };
    }
    return { kind: "tool", name, arguments: args as Record<string, unknown> };
  }

  const ask = /^\/ask(?=\s|$)(?:\s+(\S+))?\s*([\s\S]*)$/i.exec(trimmed);
  if (ask) {
    const agent = ask[1];
    const question = (ask[2] ?? "").trim();
    if (!agent || question === "")
      return { kind: "syntax_error", message: `/ask needs an agent and a question. Write it as ${askSyntax}.` };
    return { kind: "tool", name: `ask_${agent}`, arguments: { question } };
  }
  return undefined;
}

/**
 * A directive the message starts with, else a `/tool <name> <json-args>` written on a line of its own
 * further down (its arguments on that line). A longer prompt can carry one that way: a task's spec,
 * for example, quotes the plan's description of the task, so a plan can tell an offline worker which
 * tool to call (the browser tests drive blocked tasks and diffs like this).
 * @example
 * findDirective("# Task 2: Limits\n\n/tool task.block {\"question\":\"How many tries?\"}\n")
 * // { kind: "tool", name: "task.block", arguments: { question: "How many tries?" } }
 */
export function findDirective(text: string): Directive | undefined {
  const leading = parseDirective(text);
  if (leading) return leading;
  const line = text.split(/\r?\n/).find((l) => /^\s*\/tool\s+\S/i.test(l));
  return line === undefined ? undefined : parseDirective(line);
}
