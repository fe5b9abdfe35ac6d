import { onDoneChoices, restartPolicies } from "../../behaviors/supervision";
import type { ToolSpec } from "../tool-spec";

/**
 * Every built-in tool, declared once: name, description, parameters and the scope of its own API route
 * (a test holds each equal to its route's `scope()`: test/security/tool-scopes.test.ts). The code of a
 * tool lives with the feature it serves and takes its spec from here (`builtinSpec`, `builtinSpecsOf`);
 * which agents have it follows from its group (`builtinToolNames`). Adding a built-in tool is a line
 * here plus its implementation and a row in that test.
 */

/** Who has a group's tools: see `builtinGroupGrants`. */
export type BuiltinToolGroup = "clock" | "http" | "memory" | "context" | "spawn" | "work";

/**
 * How an agent comes to have a group's tools: `listed` when its runtime's `tools` names them (a
 * script's `(tools …)`), `every agent` always, `spawn grant` when its script says `(spawn :allowed true …)`.
 */
export const builtinGroupGrants: Readonly<Record<BuiltinToolGroup, "listed" | "every agent" | "spawn grant">> = {
  clock: "listed",
  http: "listed",
  memory: "every agent",
  context: "every agent",
  spawn: "spawn grant",
  work: "listed",
};

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const featureArg = {
  type: "string",
  description: "The feature (optional: your own task's feature, or the project's only one)",
};
const taskArg = { type: "integer", minimum: 1, description: "The task's number" };

const catalog: Readonly<Record<BuiltinToolGroup, readonly ToolSpec[]>> = {
  clock: [
    {
      name: "clock.now",
      description: "The current date and time (UTC, ISO 8601) and epoch milliseconds.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      runtime: "builtin",
      idempotent: true,
    },
  ],
  // The description and time limit name the agent's own hosts and limits (core/tools/builtins/http-fetch.ts).
  http: [
    {
      name: "http.fetch",
      description: "Fetch a URL with GET or POST from the hosts the operator allows.",
      parameters: {
        type: "object",
        properties: {
          url: { type: "string", description: "Absolute http(s) URL" },
          method: { type: "string", enum: ["GET", "POST"], default: "GET" },
          headers: { type: "object", additionalProperties: { type: "string" } },
          body: { type: "string", description: "Request body (POST only)" },
        },
        required: ["url"],
        additionalProperties: false,
      },
      runtime: "builtin",
    },
  ],
  /**
   * The memory tools (durable-objects/agent/memory/tools.ts): `memory.store` is open to chat
   * (remembering what the person said is ordinary agent work, and the output gates check what it
   * writes); searching and forgetting are the operator's, as their routes.
   */
  memory: [
    {
      name: "memory.store",
      description:
        "Remember something for later conversations: a fact, an entity, a standing instruction or an episode. Write one self-contained sentence.",
      parameters: {
        type: "object",
        properties: {
          text: {
            type: "string",
            minLength: 1,
            maxLength: 4000,
            description: "What to remember, as a self-contained sentence.",
          },
          kind: { type: "string", enum: ["fact", "entity", "instruction", "episode"], default: "fact" },
          importance: { type: "number", minimum: 0, maximum: 1, description: "0..1, default 0.6" },
        },
        required: ["text"],
        additionalProperties: false,
      },
      runtime: "builtin",
    },
    {
      name: "memory.search",
      description:
        "Search your long-term memory by meaning and words. Returns the best matching memories with their ids.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, maxLength: 1000 },
          limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
        },
        required: ["query"],
        additionalProperties: false,
      },
      runtime: "builtin",
      idempotent: true,
      // As GET /api/agents/:name/memories and the agent's MCP `search_memory`: reading the whole memory is the operator's.
      scope: "admin",
    },
    {
      name: "memory.forget",
      description: "Forget one memory for good, by the id memory.search returned.",
      parameters: {
        type: "object",
        properties: { id: { type: "string", minLength: 1, maxLength: 64 } },
        required: ["id"],
        additionalProperties: false,
      },
      runtime: "builtin",
      idempotent: true,
      // As DELETE /api/agents/:name/memories/:id.
      scope: "admin",
    },
  ],
  /**
   * Choosing context by goal at run time (durable-objects/agent/memory/context-tools.ts). Neither has a
   * route of its own: they read only what the agent's own turns may already put in its context (its
   * document sources and the sources other agents grant it, each owner deciding per requester), so they
   * are open to chat — and they never reach the agent's memory, whose search is the operator's.
   */
  context: [
    {
      name: "context.sources",
      description:
        "List the context sources you may use: your own document sources and the sources other agents grant you, each with a label, a description and your access (read or search). Pick the ones that fit your goal, then use context.search.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      runtime: "builtin",
      idempotent: true,
    },
    {
      name: "context.search",
      description:
        "Search one context source listed by context.sources ('docs' or 'owner/docs'). Without a query, returns the source's newest items (needs read access).",
      parameters: {
        type: "object",
        properties: {
          source: { type: "string", minLength: 1, maxLength: 200, description: "A source name from context.sources." },
          query: { type: "string", minLength: 1, maxLength: 1000 },
          limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
        },
        required: ["source"],
        additionalProperties: false,
      },
      runtime: "builtin",
      idempotent: true,
    },
  ],
  /** `agent.spawn` runs as a delegation (runtime "agent"): the run waits for the child's report (durable-objects/agent/bus/spawn.ts). */
  spawn: [
    {
      name: "agent.spawn",
      description:
        'Create a child agent from a Pantheon script (an (actor "name" …) form) and give it a goal. The child is connected to you; its report on the goal comes back as this tool\'s result. Its (connections …) may name only you and your own connections, and its (spawn :quota n) may be at most what is left of your quota after it.',
      parameters: {
        type: "object",
        properties: {
          script: { type: "string", minLength: 1, maxLength: 64_000 },
          goal: { type: "string", minLength: 1, maxLength: 32_000 },
          supervise: {
            type: "object",
            description:
              'How you supervise the child: restart its failed runs toward the goal (restart, maxRestarts, backoff such as "5s"), how long it may work (ttl such as "1h"), and whether it is archived once its goal is done (onDone).',
            properties: {
              restart: { type: "string", enum: [...restartPolicies] },
              maxRestarts: { type: "integer", minimum: 0, maximum: 10 },
              backoff: { type: "string" },
              ttl: { type: "string" },
              onDone: { type: "string", enum: [...onDoneChoices] },
            },
            additionalProperties: false,
          },
        },
        required: ["script", "goal"],
        additionalProperties: false,
      },
      runtime: "agent",
    },
  ],
  /**
   * The work tools (durable-objects/agent/work/tools.ts): reading plans, tasks, status and files is
   * open to chat, as is a worker's `task.block` question; creating, planning, syncing, starting,
   * committing, discarding and changing files are the operator's (admin), as their routes. A task's
   * worker run acts as admin (only admin starts a task).
   */
  work: [
    {
      name: "feature.create",
      scope: "admin",
      description:
        "Create a feature you will plan and orchestrate, empty or imported from a git repository (its token a project secret named in tokenSecret)",
      runtime: "builtin",
      parameters: object(
        {
          name: { type: "string", description: "a lower-case slug, e.g. login-page" },
          title: { type: "string" },
          contextFiles: { type: "array", items: { type: "string" } },
          repository: {
            type: "object",
            description: "import the files from a git smart-HTTP remote at a branch",
            properties: {
              url: { type: "string", description: "e.g. https://github.com/acme/app.git (no credentials in it)" },
              ref: { type: "string", description: "the branch, e.g. main (default: the remote's default)" },
              tokenSecret: { type: "string", description: "the project secret holding the token, e.g. GITHUB_TOKEN" },
            },
            required: ["url"],
            additionalProperties: false,
          },
        },
        ["name", "title"],
      ),
    },
    {
      name: "plan.write",
      scope: "admin",
      description:
        "Write a new version of the feature's plan (markdown with a '## Tasks' list); a person reviews and approves it",
      runtime: "builtin",
      parameters: object({ feature: featureArg, markdown: { type: "string" } }, ["markdown"]),
    },
    {
      name: "plan.read",
      description: "Read the feature's plan (the latest version unless one is named), with people's comments",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg, version: { type: "integer", minimum: 1 } }),
    },
    {
      name: "plan.ask",
      scope: "admin",
      description:
        "Before you write the plan, ask the person one question you cannot plan without (a few at most); it waits in their inbox, and the answer comes as your next message",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg, question: { type: "string" } }, ["question"]),
    },
    {
      name: "tasks.sync",
      scope: "admin",
      description: "Sync the feature's tasks from its approved plan",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg }),
    },
    {
      name: "task.start",
      scope: "admin",
      description: "Start a task: its worker agent runs it in isolation from its spec",
      runtime: "builtin",
      timeoutMs: 60_000,
      parameters: object({ feature: featureArg, task: taskArg }, ["task"]),
    },
    {
      name: "task.commit",
      scope: "admin",
      description:
        "Commit your task's changes on its git branch (your summary is the commit message) and merge them into the feature branch, reporting the task done (or partial). If the merge conflicts, nothing is merged: the answer gives each file's two sides, your copy then holds the file with conflict markers; write it as it should be and call task.commit again",
      runtime: "builtin",
      idempotent: true,
      parameters: object(
        {
          feature: featureArg,
          task: taskArg,
          summary: { type: "string" },
          status: { type: "string", enum: ["done", "partial"] },
        },
        ["summary"],
      ),
    },
    {
      name: "task.block",
      description:
        "Ask a person a question you cannot go on without; your task waits until they answer, and the answer is this tool's result",
      runtime: "builtin",
      parameters: object({ question: { type: "string" } }, ["question"]),
    },
    {
      name: "task.discard",
      scope: "admin",
      description: "Drop a task's uncommitted changes and cancel it",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg, task: taskArg }),
    },
    {
      name: "status",
      description: "The feature's status and task board",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg }),
    },
    {
      name: "fs.list",
      description: "List the feature's files (your task's copy when you work on a task)",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg, prefix: { type: "string" } }),
    },
    {
      name: "fs.read",
      description: "Read a file of the feature (your task's copy when you work on a task)",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ feature: featureArg, path: { type: "string" } }, ["path"]),
    },
    {
      name: "fs.write",
      scope: "admin",
      description: "Write a file in your task's copy of the feature's files",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ path: { type: "string" }, content: { type: "string" } }, ["path", "content"]),
    },
    {
      name: "fs.delete",
      scope: "admin",
      description: "Delete a file in your task's copy of the feature's files",
      runtime: "builtin",
      idempotent: true,
      parameters: object({ path: { type: "string" } }, ["path"]),
    },
  ],
};

/** The groups in the order an agent's tools list them. */
export const builtinToolGroups = Object.keys(catalog) as BuiltinToolGroup[];

/**
 * The specs of one group, in order.
 * @example
 * builtinSpecsOf("memory").map((s) => s.name); // ["memory.store", "memory.search", "memory.forget"]
 */
export function builtinSpecsOf(group: BuiltinToolGroup): ToolSpec[] {
  return [...catalog[group]];
}

/**
 * One built-in tool's spec; throws for a name that is not a built-in (a programming error).
 * @example
 * builtinSpec("clock.now").idempotent; // true
 */
export function builtinSpec(name: string): ToolSpec {
  for (const group of builtinToolGroups) for (const spec of catalog[group]) if (spec.name === name) return spec;
  throw new Error(`'${name}' is not a built-in tool (core/tools/builtins/catalog.ts)`);
}

/**
 * The names of the built-in tools, of the groups `where` picks (every group when absent), in order.
 * @example
 * builtinToolNames((g) => builtinGroupGrants[g] === "listed"); // what a script's (tools …) may name
 */
export function builtinToolNames(where?: (group: BuiltinToolGroup) => boolean): string[] {
  return builtinToolGroups.filter((g) => !where || where(g)).flatMap((g) => catalog[g].map((s) => s.name));
}
