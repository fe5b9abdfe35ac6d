import { didYouMean } from "./issues";
import { describe, type Node } from "./reader";
import { behaviorModes, messageRoles, policies } from "./script-schema";
import { cronExpected, cronProblem, durationExpected, parseDuration } from "./time";
import {
  arity,
  expectString,
  headOf,
  issue,
  keywordArgs,
  literal,
  mark,
  unknownForm,
  type Compiler,
  type Path,
} from "./compiler-state";
import { compileExpr, readParams, type Bindings } from "./compile-expr";
import { compileActor } from "./compile-actor";

type List = Node & { type: "list" };
/** The child's supervision, named at the spawn site (core/behaviors supervision.ts). */
const superviseKeys = ["restart", "maxRestarts", "backoff", "ttl", "onDone"] as const;
const behaviorClauses = ["every", "cron", "on-idle", "policy", "retry", "goal", "plan"] as const;
const actionForms = ["tool", "message", "ask", "remember", "think", "spawn", "sequence"] as const;

/** `(talent "name" (behavior …) …)` */
export function compileTalent(c: Compiler, node: List, path: Path): unknown {
  mark(c, path, node, "talent");
  const name = expectString(c, node.items[1], "talent", node, "a talent name");
  if (name !== undefined) mark(c, [...path, "name"], node.items[1]!, "talent");
  const behaviors: unknown[] = [];
  for (const child of node.items.slice(2)) {
    if (headOf(child) !== "behavior") {
      unknownForm(c, child, "talent", ["behavior"]);
      continue;
    }
    behaviors.push(compileBehavior(c, child as List, [...path, "behaviors", behaviors.length]));
  }
  return { name, behaviors };
}

/** Keyword options after the mode: a trigger said as `:cron "…"` (like `(cron "…")`), and `:input {…}`. */
const behaviorOptions = ["every", "cron", "on-idle", "input", "when", "priority", "notify"] as const;

/**
 * `(behavior "name" :mode [trigger] [:input {…}] [:notify] [(policy …)] [(retry …)] (goal (input) …) (plan (input ctx) …))`.
 * The trigger is a clause `(cron "0 7 * * *")` or the option `:cron "0 7 * * *"`; `:input {:repo "acme/api"}`
 * is what the trigger runs the behavior with (`(get input "repo")`); `:notify` (a flag, no value) pushes
 * each result to people's phones.
 */
function compileBehavior(c: Compiler, node: List, path: Path): unknown {
  mark(c, path, node, "behavior");
  const out: Record<string, unknown> = {};
  const nameNode = node.items[1];
  out.name = expectString(c, nameNode, "behavior", node, "a behavior name");
  if (nameNode) mark(c, [...path, "name"], nameNode, "behavior");
  const modeNode = node.items[2];
  const modes = behaviorModes.map((m) => ":" + m);
  if (modeNode?.type === "keyword" && (behaviorModes as readonly string[]).includes(modeNode.name))
    out.mode = modeNode.name;
  else if (modeNode?.type === "keyword")
    issue(
      c,
      modeNode,
      "behavior",
      modes.join(", "),
      `:${modeNode.name}`,
      `invalid mode :${modeNode.name}${didYouMean(":" + modeNode.name, modes)}: expected ${modes.join(", ")}`,
    );
  else if (modeNode) issue(c, modeNode, "behavior", `a mode ${modes.join(", ")}`);
  else issue(c, node, "behavior", `a mode ${modes.join(", ")}`, "end of (behavior …)");

  const seen = new Map<string, Node>();
  const rest = node.items.slice(3);
  for (let index = 0; index < rest.length; index++) {
    let clause = rest[index]!;
    if (clause.type === "keyword") {
      const value = rest[index + 1];
      const shown = behaviorOptions.map((o) => ":" + o);
      if (!(behaviorOptions as readonly string[]).includes(clause.name)) {
        issue(
          c,
          clause,
          "behavior",
          `one of ${shown.join(" ")} or a clause`,
          `:${clause.name}`,
          `unknown option :${clause.name} in (behavior …)${didYouMean(":" + clause.name, shown)}`,
        );
        index++;
        continue;
      }
      // `:notify` is a flag: the behavior's result is pushed to people's phones (docs/push.md).
      if (clause.name === "notify") {
        if (seen.has("notify")) {
          issue(
            c,
            clause,
            "behavior",
            ":notify once",
            ":notify again",
            "option :notify is given twice in (behavior …)",
          );
          continue;
        }
        seen.set("notify", clause);
        mark(c, [...path, "notify"], clause, "behavior");
        out.notify = true;
        continue;
      }
      if (value === undefined) {
        issue(
          c,
          clause,
          "behavior",
          `a value after :${clause.name}`,
          "end of (behavior …)",
          `option :${clause.name} in (behavior …) has no value`,
        );
        continue;
      }
      index++;
      if (clause.name === "when" || clause.name === "priority") {
        if (seen.has(clause.name)) {
          issue(
            c,
            clause,
            "behavior",
            `:${clause.name} once`,
            `:${clause.name} again`,
            `option :${clause.name} is given twice in (behavior …)`,
          );
          continue;
        }
        seen.set(clause.name, clause);
        mark(c, [...path, clause.name], value, "behavior");
        if (clause.name === "priority") {
          if (value.type !== "number" || !Number.isInteger(value.value))
            issue(c, value, "behavior", "a whole number (higher wins)", describe(value));
          else out.priority = value.value;
        } else out.when = compileWhen(c, value);
        continue;
      }
      if (clause.name === "input") {
        if (seen.has("input")) {
          issue(c, clause, "behavior", ":input once", ":input again", "option :input is given twice in (behavior …)");
          continue;
        }
        seen.set("input", clause);
        if (value.type !== "map") {
          issue(c, value, "behavior", 'a map of the input\'s fields, e.g. {:repo "acme/api"}', describe(value));
          continue;
        }
        mark(c, [...path, "input"], value, "behavior");
        out.input = literal(c, value, "behavior");
        continue;
      }
      // `:cron "…"` is the clause `(cron "…")` said as an option.
      clause = {
        type: "list",
        items: [{ type: "symbol", name: clause.name, pos: clause.pos }, value],
        pos: clause.pos,
      } as List;
    }
    const head = headOf(clause);
    if (head === undefined || !(behaviorClauses as readonly string[]).includes(head)) {
      unknownForm(c, clause, "behavior", behaviorClauses);
      continue;
    }
    const group = head === "every" || head === "cron" || head === "on-idle" ? "trigger" : head;
    const earlier = seen.get(group);
    if (earlier) {
      issue(
        c,
        clause,
        head,
        `one ${group} per behavior`,
        `another (${head} …)`,
        `behavior has a second ${group}; the first is at ${earlier.pos.line}:${earlier.pos.column}`,
      );
      continue;
    }
    seen.set(group, clause);
    const list = clause as List;
    mark(c, [...path, group], clause, head);
    if (group === "trigger") out.trigger = compileTrigger(c, list, head);
    else if (head === "policy") out.policy = compilePolicy(c, list);
    else if (head === "retry") out.retry = compileRetry(c, list);
    else if (head === "goal") out.goal = compileGoal(c, list);
    else out.plan = compilePlan(c, list, [...path, "plan"]);
  }
  if (!seen.has("goal"))
    issue(
      c,
      node,
      "behavior",
      "(goal (input) …)",
      "no goal",
      `behavior ${JSON.stringify(out.name ?? "")} has no (goal (input) …)`,
    );
  if (!seen.has("plan"))
    issue(
      c,
      node,
      "behavior",
      "(plan (input ctx) …)",
      "no plan",
      `behavior ${JSON.stringify(out.name ?? "")} has no (plan (input ctx) …)`,
    );
  // A persistent behavior runs on its trigger whether or not the agent is busy; with none it would
  // never run (a passive one gets the idle default: "when idle" is what passive means).
  if (out.mode === "persistent" && !seen.has("trigger"))
    issue(
      c,
      node,
      "behavior",
      "(every …), (cron …) or (on-idle …)",
      "no trigger",
      `persistent behavior ${JSON.stringify(out.name ?? "")} has no trigger: add (every "1h"), (cron "0 7 * * *") or (on-idle "30m"), or make it :active to run on each message`,
    );
  return out;
}

/** `:when "diff"`, `:when ["diff" "review"]` (the text holds one of them) or `:when {:contains [...] :has ["repo"]}`. */
function compileWhen(c: Compiler, value: Node): unknown {
  const expected = ':when "word", :when ["word" …] or :when {:contains ["word" …] :has ["field" …]}';
  if (value.type === "string") return { contains: [value.value] };
  if (value.type === "vector" || value.type === "list") {
    const words = value.items.map((item) => (item.type === "string" ? item.value : undefined));
    if (words.some((w) => w === undefined)) return issue(c, value, "behavior", expected, describe(value));
    return { contains: words };
  }
  if (value.type === "map") return literal(c, value, "behavior", true);
  return issue(c, value, "behavior", expected, describe(value));
}

function compileTrigger(c: Compiler, node: List, head: string): unknown {
  const usage = head === "cron" ? '(cron "0 7 * * *")' : `(${head} "15m")`;
  if (!arity(c, node, head, 1, 1, usage)) return undefined;
  const text = expectString(c, node.items[1], head, node, head === "cron" ? "a cron expression" : "a duration");
  if (text === undefined) return undefined;
  const at = node.items[1]!;
  if (head === "cron") {
    const problem = cronProblem(text);
    if (problem)
      return issue(c, at, "cron", cronExpected, JSON.stringify(text), `bad cron ${JSON.stringify(text)}: ${problem}`);
    return { kind: "cron", cron: text };
  }
  const ms = parseDuration(text);
  if (ms === undefined)
    return issue(
      c,
      at,
      head,
      durationExpected,
      JSON.stringify(text),
      `bad duration ${JSON.stringify(text)}: expected ${durationExpected}`,
    );
  return head === "every" ? { kind: "every", every: text, ms } : { kind: "on-idle", idle: text, ms };
}

function compilePolicy(c: Compiler, node: List): unknown {
  if (!arity(c, node, "policy", 1, 1, "(policy :majority)")) return undefined;
  const arg = node.items[1]!;
  const name = arg.type === "keyword" ? arg.name : arg.type === "string" ? arg.value : undefined;
  const shown = policies.map((p) => ":" + p);
  if (name === undefined || !(policies as readonly string[]).includes(name))
    return issue(
      c,
      arg,
      "policy",
      `one of ${shown.join(", ")}`,
      describe(arg),
      `invalid policy ${describe(arg)}${didYouMean(":" + (name ?? ""), shown)}: expected one of ${shown.join(", ")}`,
    );
  return name;
}

function compileRetry(c: Compiler, node: List): unknown {
  const args = keywordArgs(c, node.items.slice(1), "retry", ["max"]);
  const max = args.get("max");
  if (!max) return issue(c, node, "retry", "(retry :max 3)", describe(node));
  if (max.value.type !== "number") return issue(c, max.value, "retry", "a whole number of retries");
  return { max: max.value.value };
}

function compileGoal(c: Compiler, node: List): unknown {
  if (!arity(c, node, "goal", 2, 2, '(goal (input) (get input "text"))')) return undefined;
  const bindings = readParams(c, node.items[1]!, "goal");
  return bindings && compileExpr(c, node.items[2]!, "goal", bindings);
}

function compilePlan(c: Compiler, node: List, path: Path): unknown {
  if (!arity(c, node, "plan", 2, 2, "(plan (input ctx) (think))")) return undefined;
  const bindings = readParams(c, node.items[1]!, "plan");
  if (!bindings) return undefined;
  const steps: unknown[] = [];
  collectSteps(c, node.items[2]!, bindings, path, steps, "plan");
  return { steps };
}

function collectSteps(c: Compiler, node: Node, bindings: Bindings, path: Path, steps: unknown[], parent: string): void {
  const head = headOf(node);
  if (head === "sequence") {
    const items = (node as List).items.slice(1);
    if (items.length === 0) issue(c, node, "sequence", "at least one action", "an empty (sequence)");
    for (const item of items) collectSteps(c, item, bindings, path, steps, "sequence");
    return;
  }
  if (head === undefined || !(actionForms as readonly string[]).includes(head)) {
    unknownForm(c, node, parent, actionForms);
    return;
  }
  const at = [...path, "steps", steps.length];
  mark(c, at, node, head);
  steps.push(compileAction(c, node as List, head, bindings, at));
}

function compileAction(c: Compiler, node: List, head: string, bindings: Bindings, path: Path): unknown {
  const expr = (n: Node) => compileExpr(c, n, head, bindings);
  switch (head) {
    case "tool": {
      const tool = expectString(c, node.items[1], "tool", node, "a tool name");
      if (tool !== undefined) mark(c, [...path, "tool"], node.items[1]!, "tool");
      const opts = keywordArgs(c, node.items.slice(2), "tool", ["args"]);
      const argsNode = opts.get("args")?.value;
      if (argsNode && argsNode.type !== "map")
        return issue(c, argsNode, "tool", 'a map of arguments such as {:repo (get input "repo")}');
      const args = argsNode ? (compileExpr(c, argsNode, "tool", bindings) as { map: unknown } | undefined)?.map : {};
      return { kind: "tool", tool, args };
    }
    case "message": {
      const role = expectString(c, node.items[1], "message", node, `a role (${messageRoles.join(", ")})`);
      if (role !== undefined && !(messageRoles as readonly string[]).includes(role))
        issue(
          c,
          node.items[1]!,
          "message",
          `one of ${messageRoles.join(", ")}`,
          JSON.stringify(role),
          `invalid role ${JSON.stringify(role)}${didYouMean(role, messageRoles)}: expected one of ${messageRoles.join(", ")}`,
        );
      const content = keywordArgs(c, node.items.slice(2), "message", ["content"]).get("content");
      if (!content) return issue(c, node, "message", '(message "assistant" :content …)', "no :content");
      return { kind: "message", role, content: expr(content.value) };
    }
    case "ask": {
      if (!arity(c, node, "ask", 2, 2, '(ask "airtable" "question") or (ask ("airtable" "github") "question")'))
        return undefined;
      const targetNode = node.items[1]!;
      const targetNodes = targetNode.type === "list" || targetNode.type === "vector" ? targetNode.items : [targetNode];
      if (targetNodes.length === 0) issue(c, targetNode, "ask", "at least one connection name", "()");
      const targets = targetNodes.map((t, i) => {
        mark(c, [...path, "targets", i], t, "ask");
        return expectString(c, t, "ask", node, "a connection name");
      });
      return { kind: "ask", targets, question: expr(node.items[2]!) };
    }
    case "remember":
      if (!arity(c, node, "remember", 1, 1, '(remember "…")')) return undefined;
      return { kind: "remember", content: expr(node.items[1]!) };
    case "think":
      if (!arity(c, node, "think", 0, 0, "(think)")) return undefined;
      return { kind: "think" };
    default: {
      const target = node.items[1];
      const script =
        headOf(target ?? node) === "actor" && target
          ? compileActor(c, target as List, [...path, "script"])
          : expectString(c, target, "spawn", node, "a script name or an inline (actor …)");
      const opts = keywordArgs(c, node.items.slice(2), "spawn", ["goal", ...superviseKeys]);
      const goal = opts.get("goal");
      if (!goal) return issue(c, node, "spawn", '(spawn "name" :goal …)', "no :goal");
      const supervise: Record<string, unknown> = {};
      for (const key of superviseKeys) {
        const value = opts.get(key)?.value;
        if (!value) continue;
        // Choices read as strings or keywords (`:restart :on-failure`), counts as numbers.
        supervise[key] = value.type === "keyword" ? value.name : literal(c, value, "spawn");
      }
      return { kind: "spawn", script, goal: expr(goal.value), ...(Object.keys(supervise).length ? { supervise } : {}) };
    }
  }
}
