import type { AgentProfile } from "../../../core/agents";
import { PantheonError } from "../../../core/errors";
import { builtinSpecsOf, type ToolImplementation } from "../../../core/tools";
import type { Principal } from "../../../core/work";
import { call } from "../../stubs";
import type { Work } from "../../feature/work";
import type { ToolSource } from "../runs/tools";

/** Which feature and task a worker agent is bound to (null for every other agent). */
export interface WorkBinding {
  feature: string;
  /** The task's number when the worker was bound (it may move with a re-sync: `key` does not). */
  task: number;
  /** The task's stable key: what the worker's calls name its task by (absent on bindings made before keys). */
  key?: string;
}

/** How a worker names its own task to the feature: by key, so a renumbering re-sync keeps it working. */
export const taskRefOf = (b: WorkBinding): number | string => b.key ?? b.task;

/** The work tools, as the built-in catalog declares them (core/tools/builtins/catalog.ts, with their scopes). */
const specs = builtinSpecsOf("work");

/** The names of the work tools: an agent has those its runtime lists (a worker gets its set when it is made). */
export const workToolNames = specs.map((s) => s.name);

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);
const num = (v: unknown) => (typeof v === "number" ? v : undefined);

/**
 * The work tools of one agent: features, plans, tasks and the workspace, each acting as this agent
 * (the feature object checks what it may do). A worker's task and feature come from its binding.
 */
export function workToolSource(
  profile: AgentProfile,
  deps: { work: Work; binding: () => WorkBinding | null },
): ToolSource {
  const me: Principal = { kind: "agent", name: profile.name };
  const declared = new Set(profile.runtime.tools);
  const feature = (args: Record<string, unknown>) => deps.work.resolve(str(args.feature), deps.binding()?.feature);
  const ownTask = (args: Record<string, unknown>, f?: string): number | string => {
    // A worker's own task is named by its key: a number the model remembers may have moved with a re-sync.
    const b = deps.binding();
    if (b && (f === undefined || b.feature === f) && (args.task === undefined || args.task === b.task))
      return taskRefOf(b);
    const task = num(args.task);
    if (task === undefined)
      throw new PantheonError("validation_failed", "name the task with 'task' (you are not a task's worker)", {
        details: { issues: [{ path: ["task"], message: "a task number" }] },
      });
    return task;
  };
  /** Workspace calls: a worker works on its own task's copy; anyone else reads the committed tree. */
  const workspaceTask = (f: string) => {
    const b = deps.binding();
    return b && b.feature === f ? taskRefOf(b) : undefined;
  };

  /** The orchestrator's session worked on the feature: recorded on the feature (best effort). */
  const noteSession = async (f: string, run: { id: string; sessionId: string } | undefined) => {
    if (run) await deps.work.feature(f).noteSession(profile.name, run.sessionId, run.id);
  };

  const implementations: Record<string, ToolImplementation> = {
    "feature.create": async (args, ctx) => {
      const created = await deps.work.create({
        name: str(args.name) ?? "",
        title: str(args.title) ?? "",
        orchestrator: profile.name,
        ...(Array.isArray(args.contextFiles) ? { contextFiles: args.contextFiles as string[] } : {}),
        // Imported from a git remote: the schema checks the URL, the ref and the secret's name; the import opens the secret.
        ...(args.repository && typeof args.repository === "object" ? { repository: args.repository } : {}),
      } as never);
      await noteSession(created.name, ctx.run);
      return created;
    },
    "plan.write": async (args, ctx) => {
      const f = await feature(args);
      const plan = await call(deps.work.feature(f).writePlan(str(args.markdown) ?? "", me));
      await noteSession(f, ctx.run);
      return {
        version: plan.version,
        tasks: plan.tasks.map((t) => t.name),
        note: "a person reviews and approves the plan before tasks are synced",
      };
    },
    "plan.read": async (args) => call(deps.work.feature(await feature(args)).readPlan(num(args.version))),
    "tasks.sync": async (args, ctx) => {
      const f = await feature(args);
      const synced = await call(deps.work.feature(f).syncTasks(me));
      await noteSession(f, ctx.run);
      return synced;
    },
    "plan.ask": async (args, ctx) => {
      const f = await feature(args);
      const asked = await call(deps.work.feature(f).askQuestion(str(args.question) ?? "", me, ctx.run));
      await noteSession(f, ctx.run);
      return {
        asked: asked.id,
        question: asked.question,
        questionsLeft: asked.left,
        note: "the question is in the person's inbox: end your turn now; their answer comes as your next message",
      };
    },
    "task.start": async (args, ctx) => {
      const f = await feature(args);
      const started = await deps.work.startTask(f, ownTask(args, f), me);
      await noteSession(f, ctx.run);
      return { task: started.task, worker: started.worker, runId: started.runId, warnings: started.spec.warnings };
    },
    "task.commit": async (args, ctx) => {
      const f = await feature(args);
      const status = args.status === "partial" ? "partial" : "done";
      return call(
        deps.work.feature(f).commitTask(
          {
            task: ownTask(args, f),
            key: ctx.idempotencyKey ?? crypto.randomUUID(),
            summary: str(args.summary) ?? "",
            status,
          },
          me,
        ),
      );
    },
    "task.block": async () => {
      const b = deps.binding();
      if (!b) throw new PantheonError("forbidden", "only a task's worker asks with task.block");
      const answered = await call(deps.work.feature(b.feature).answerOf(taskRefOf(b), me));
      return answered.answer
        ? `${answered.by ?? "A person"} answered: ${answered.answer}`
        : "A person let you go on without an answer: use your best judgement.";
    },
    "task.discard": async (args) => {
      const f = await feature(args);
      return deps.work.discard(f, ownTask(args, f), me);
    },
    status: async (args) => {
      const f = await feature(args);
      const stub = deps.work.feature(f);
      return { feature: await call(stub.summary()), tasks: await call(stub.tasks(deps.work.lookup)) };
    },
    "fs.list": async (args) => {
      const f = await feature(args);
      const task = workspaceTask(f);
      return call(
        deps.work
          .feature(f)
          .listFiles({ ...(task ? { task } : {}), ...(str(args.prefix) ? { prefix: str(args.prefix)! } : {}) }),
      );
    },
    "fs.read": async (args) => {
      const f = await feature(args);
      const task = workspaceTask(f);
      return (await call(deps.work.feature(f).readFile({ ...(task ? { task } : {}), path: str(args.path) ?? "" })))
        .content;
    },
    "fs.write": async (args) => {
      const b = deps.binding();
      if (!b) throw new PantheonError("forbidden", "only a task's worker writes files (its own copy)");
      return call(
        deps.work.feature(b.feature).writeFile(
          {
            task: taskRefOf(b),
            path: str(args.path) ?? "",
            content: typeof args.content === "string" ? args.content : "",
          },
          me,
        ),
      );
    },
    "fs.delete": async (args) => {
      const b = deps.binding();
      if (!b) throw new PantheonError("forbidden", "only a task's worker deletes files (in its own copy)");
      return call(
        deps.work.feature(b.feature).writeFile({ task: taskRefOf(b), path: str(args.path) ?? "", content: null }, me),
      );
    },
  };
  const chosen = specs.filter((s) => declared.has(s.name));
  return { specs: chosen, implementations: Object.fromEntries(chosen.map((s) => [s.name, implementations[s.name]!])) };
}
