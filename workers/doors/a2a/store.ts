import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from "@a2a-js/sdk";
import { TaskNotCancelableError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { TaskStore } from "@a2a-js/sdk/server";
import { taskOfRun, terminalTaskStates, type RunTurnView } from "../../../core/protocols/a2a";

/** What the task store needs of the agent: its runs, read and cancelled. */
export interface RunAccess {
  agent: string;
  /** The run of that id as one exchange, or null when the agent has no such run. */
  turn(runId: string): Promise<RunTurnView | null>;
  /** Cancels the run (the caller is the request's principal). */
  cancel(runId: string): Promise<void>;
  now(): number;
}

/**
 * The SDK's `TaskStore` backed by the agent's runs: a task is its run, read from the agent on every
 * load, so any request on any isolate sees the same task, and nothing about a task lives in the
 * worker. What the SDK saves while one request is handled (the task it is building from the events
 * it publishes) is kept for that request only, on top of the run. Saving a task as canceled
 * cancels its run: that is how `tasks/cancel` reaches a run another request started.
 */
export function makeRunTaskStore(runs: RunAccess): TaskStore {
  const inRequest = new Map<string, Task>();
  return {
    async load(taskId) {
      const held = inRequest.get(taskId);
      if (held) return structuredClone(held);
      const view = await runs.turn(taskId);
      return view ? taskOfRun(view, runs.agent, runs.now()) : undefined;
    },
    async save(task) {
      if (task.status?.state === TaskState.TASK_STATE_CANCELED) {
        const view = await runs.turn(task.id);
        if (view && !terminalTaskStates.includes(taskOfRun(view, runs.agent, runs.now()).status!.state)) {
          try {
            await runs.cancel(task.id);
          } catch (error) {
            throw new TaskNotCancelableError(
              `task ${task.id} cannot be cancelled: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
      }
      inRequest.set(task.id, structuredClone(task));
    },
    async list(_params: ListTasksRequest): Promise<ListTasksResponse> {
      throw new UnsupportedOperationError("listing tasks is not offered: GetTask (tasks/get) reads one task by id");
    },
  };
}
