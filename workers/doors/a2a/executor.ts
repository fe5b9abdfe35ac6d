import { TaskState } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import {
  agentMessage,
  approvalAnswerOf,
  contextIdOf,
  replyArtifact,
  requestTextOf,
  taskStatusOf,
  type RunTurnView,
} from "../../../core/protocols/a2a";
import { readRunEvents } from "../../../core/protocols/run-events";

/** What the executor does with the agent: one turn as a stream of run events, a decision, a run. */
export interface AgentTurns {
  agent: string;
  /** Starts a turn whose run id is the task id, in the session of the A2A context. */
  stream(input: { content: string; contextId: string; runId: string }): Promise<ReadableStream<Uint8Array>>;
  decide(runId: string, answer: { approved: boolean; callId?: string; reason?: string }): Promise<void>;
  turn(runId: string): Promise<RunTurnView | null>;
  cancel(runId: string): Promise<void>;
  now(): number;
}

const working = (
  bus: ExecutionEventBus,
  taskId: string,
  contextId: string,
  now: number,
  words?: { text: string; data: unknown; id: string },
) =>
  bus.publish(
    AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: {
        state: TaskState.TASK_STATE_WORKING,
        message: words
          ? agentMessage({ messageId: words.id, taskId, contextId, text: words.text, data: words.data })
          : undefined,
        timestamp: new Date(now).toISOString(),
      },
      metadata: undefined,
    }),
  );

/**
 * Runs A2A requests as Pantheon runs (the SDK's `AgentExecutor`). A new message starts a turn whose
 * run id is the task id, and the run's events become the task's updates as they happen: working (a
 * tool call, its result), then the reply as the artifact and the final state — completed, failed,
 * canceled, or input-required when a tool call waits for a person. A message to an input-required
 * task is that person's decision (the route has checked the token may decide).
 */
export function makeRunExecutor(turns: AgentTurns): AgentExecutor {
  async function settle(bus: ExecutionEventBus, taskId: string, contextId: string, lastError?: string): Promise<void> {
    const view = await turns.turn(taskId);
    if (!view) {
      // The turn never made its run (refused before it started): the task fails with the reason.
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_FAILED,
            message: agentMessage({
              messageId: `${taskId}-failed`,
              taskId,
              contextId,
              text: lastError ?? "the agent did not start the task",
            }),
            timestamp: new Date(turns.now()).toISOString(),
          },
          metadata: undefined,
        }),
      );
      return;
    }
    if (view.reply !== null)
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: replyArtifact(taskId, view.reply),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: taskStatusOf(view, contextId, turns.now()),
        metadata: { pantheon: { runId: taskId, status: view.run.status } },
      }),
    );
  }

  return {
    async execute(request: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = request;
      if (request.task) {
        // The route admitted only an answer to an approval wait, from a token that may decide.
        bus.publish(AgentEvent.task(request.task));
        const parsed = approvalAnswerOf(request.userMessage);
        if (!parsed.ok) throw new Error(parsed.reason);
        working(bus, taskId, contextId, turns.now());
        await turns.decide(taskId, parsed.answer);
        await settle(bus, taskId, contextId);
        return;
      }
      const text = requestTextOf(request.userMessage);
      if (!text.ok) throw new Error(text.reason);
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_SUBMITTED,
            message: undefined,
            timestamp: new Date(turns.now()).toISOString(),
          },
          artifacts: [],
          history: [request.userMessage],
          metadata: { pantheon: { agent: turns.agent, runId: taskId } },
        }),
      );
      const stream = await turns.stream({ content: text.text, contextId, runId: taskId });
      let lastError: string | undefined;
      try {
        for await (const event of readRunEvents(stream)) {
          const now = turns.now();
          if (event.type === "run") working(bus, taskId, contextId, now);
          else if (event.type === "tool_call")
            working(bus, taskId, contextId, now, {
              id: `${taskId}-${event.callId}-call`,
              text: `calling ${event.name}`,
              data: { toolCall: { callId: event.callId, name: event.name, arguments: event.arguments } },
            });
          else if (event.type === "gate" && !event.allow)
            working(bus, taskId, contextId, now, {
              id: `${taskId}-${event.callId}-${event.gate}`,
              text: `gate ${event.gate} refused ${event.callId}: ${event.reason ?? "no reason given"}`,
              data: { gate: event },
            });
          else if (event.type === "tool_result") {
            const outcome = event.ok
              ? `${event.name} answered`
              : `${event.name} failed: ${event.error ?? "no reason given"}`;
            working(bus, taskId, contextId, now, {
              id: `${taskId}-${event.callId}-result`,
              text: outcome,
              data: {
                toolResult: {
                  callId: event.callId,
                  name: event.name,
                  ok: event.ok,
                  ...(event.ok ? { output: event.output } : { error: event.error }),
                },
              },
            });
          } else if (event.type === "error") lastError = `${event.code}: ${event.message}`;
        }
      } catch {
        // The stream broke (the agent's object restarted, say): the run is persisted and carries on
        // by itself, so the task is what the run says now, not a failure of this request.
      }
      await settle(bus, taskId, contextId, lastError);
    },

    /** Only reached for a task whose bus lives in this request; elsewhere the store cancels the run. */
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      const view = await turns.turn(taskId);
      if (view && !["completed", "failed", "cancelled"].includes(view.run.status)) await turns.cancel(taskId);
      const after = await turns.turn(taskId);
      if (!after) return;
      const contextId = contextIdOf(after.run.sessionId, after.sessionTitle);
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: taskStatusOf(after, contextId, turns.now()),
          metadata: undefined,
        }),
      );
    },
  };
}
