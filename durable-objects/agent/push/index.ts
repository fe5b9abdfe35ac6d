import { scopes, type Scope } from "../../../core/auth";
import {
  approvalAnswered,
  approvalNotice,
  audienceReaches,
  behaviorNotice,
  isPersonName,
  mcpQuestionNotice,
  mcpQuestionSettled,
  waitsForPerson,
  type PushAudience,
  replyNotice,
  type PushJob,
  type PushNotice,
} from "../../../core/push";
import type { RunState } from "../../../core/run";
import type { RunEvent } from "../chat/live";

export interface PushNoticesDeps {
  /** Whether push is set up (the VAPID key secret): without it nothing is queued. */
  enabled(): boolean;
  project(): string;
  agent(): string;
  /**
   * A run's state: the driver's copy in memory while it runs (its events are published from there),
   * storage only for one it no longer holds. No row read and parse per finished turn.
   */
  run(runId: string): RunState | null;
  /** The agent's redactor (secrets it holds never reach a notice). */
  redact(text: string): string;
  /** The tokens with a socket live on the agent: their people are looking at the chat. */
  liveTokens(): string[];
  /** Puts a job on the push queue (`env.PUSH`); its consumer encrypts and sends (workers/push-queue.ts). */
  enqueue(job: PushJob): Promise<void>;
  /** The agent's key-value storage: which runs' approval notices went out survives an eviction. */
  kv: {
    get<T>(key: string): T | undefined;
    put(key: string, value: unknown): void;
    delete(key: string): unknown;
    list<T>(options: { prefix: string }): Iterable<[string, T]>;
  };
  /** Off the response path: a turn with ten subscribed devices takes the time of one with none. */
  background(work: Promise<unknown>): void;
  /** Whether the script's behavior `<talent>/<behavior>` says `:notify` (its results are pushed). */
  notifies(behavior: string): boolean;
  /** Who has a subscribed device, from the project's registry: read once, when no copy is kept yet. */
  fetchAudience(): Promise<PushAudience>;
}

/** Calls that are a question to a person, notified by their feature (durable-objects/feature/notices.ts). */
const questionCalls = new Set(["task.block"]);
const waitingPrefix = "push:waiting:";
const waitingKey = (runId: string) => waitingPrefix + runId;
/** The copy of the project's push audience this agent keeps (the registry sends a new one on each change). */
const audienceKey = "push:audience";

/**
 * What notifies, as the agent's runs go: an approval waits (every person whose scope may decide it),
 * an approval was answered (their notifications clear), the reply to a person's message while
 * none of their devices has a socket on the agent, and the result of a behavior that says `:notify`. The agent only queues one small job per notice;
 * the push queue's consumer finds the devices in the project's registry (revoked devices, other
 * projects' people and muted agents are never among them), encrypts for each and sends.
 * @example
 * const push = makePushNotices({ enabled, project, agent, run, redact, liveTokens, enqueue, kv, background, notifies, fetchAudience });
 * events.listen((event, runId) => push.onRunEvent(event, runId));
 */
export function makePushNotices(deps: PushNoticesDeps) {
  /**
   * The runs whose approval notice went out (and the scope it went to), kept in storage so one
   * answered after an eviction still clears, and in memory so the status and done events of every
   * other run (a bus run between agents, most turns) read no storage: listed once after a wake.
   */
  let waiting: Map<string, Scope> | null = null;
  function waits(): Map<string, Scope> {
    if (!waiting) {
      waiting = new Map();
      for (const [key, scope] of deps.kv.list<Scope>({ prefix: waitingPrefix }))
        waiting.set(key.slice(waitingPrefix.length), scope);
    }
    return waiting;
  }
  /** The audience kept, or the registry's (kept from then on): the one registry call happens off the response path. */
  async function audience(): Promise<PushAudience> {
    const kept = deps.kv.get<PushAudience>(audienceKey);
    if (kept) return kept;
    const fetched = await deps.fetchAudience();
    keep(fetched);
    return deps.kv.get<PushAudience>(audienceKey) ?? fetched;
  }
  /** Keeps a copy unless a newer one is kept already (two copies may arrive out of order). */
  function keep(next: PushAudience): void {
    const kept = deps.kv.get<PushAudience>(audienceKey);
    if (!kept || next.version >= kept.version) deps.kv.put(audienceKey, next);
  }

  function queue(notice: PushNotice, to: { scope: Scope; person?: string; unlessLooking?: true }): void {
    const job: PushJob = {
      kind: "push",
      project: deps.project(),
      agent: deps.agent(),
      notice,
      ...to,
      ...(to.unlessLooking ? { looking: deps.liveTokens() } : {}),
    };
    deps.background(
      (async () => {
        // No device of anyone the notice is for: no queue job, no registry lookup in the consumer. A
        // thing that waits for a person (an approval) is queued all the same, opened and cleared: the
        // registry counts it for the badge of whoever subscribes while it waits.
        if (!waitsForPerson(notice.tag) && !audienceReaches(await audience(), to)) return;
        await deps.enqueue(job);
      })().catch((error: unknown) => console.error("push: could not queue", (error as Error)?.message)),
    );
  }

  return {
    /** The registry's new copy of who has a subscribed device (a subscription came or went). */
    audienceChanged: keep,
    /** The agent forgets everything: a project made again under its name starts its versions anew. */
    wipe(): void {
      deps.kv.delete(audienceKey);
      for (const runId of waits().keys()) deps.kv.delete(waitingKey(runId));
      waiting = null;
    },
    /**
     * An MCP server's question began to wait (`open`: the people who may approve are told, tagged
     * per question) or waits no more (answered, declined, expired: their notification clears).
     */
    mcpQuestion(question: { id: string; server: string }, open: boolean): void {
      if (!deps.enabled()) return;
      const agent = deps.agent();
      const notice = open
        ? mcpQuestionNotice({ project: deps.project(), agent, server: question.server, question: question.id })
        : mcpQuestionSettled({ agent, question: question.id });
      queue(notice, { scope: "approve" });
    },
    onRunEvent(event: RunEvent, runId: string): void {
      if (!deps.enabled()) return;
      if (event.type === "status" && event.status === "waiting_approval") {
        const state = deps.run(runId);
        // A worker's question (task.block) waits as a call too, but its feature tells of it, as a
        // question with the task's own tag: a second notice "asks to use task.block" would be noise.
        const pending = state?.calls.filter((c) => c.status === "proposed" && !questionCalls.has(c.call.name)) ?? [];
        if (!pending.length) return;
        // Only people who may decide every pending call: never a notice one cannot act on.
        const scope = pending
          .map((c) => c.approverScope ?? "approve")
          .reduce((a, b) => (scopes.indexOf(a) >= scopes.indexOf(b) ? a : b));
        // Kept in storage too, not only memory: an approval answered after an eviction still clears its notice.
        deps.kv.put(waitingKey(runId), scope);
        waits().set(runId, scope);
        queue(approvalNotice({ project: deps.project(), agent: deps.agent(), runId, tool: pending[0]!.call.name }), {
          scope,
        });
        return;
      }
      if ((event.type === "status" || event.type === "done") && event.status !== "waiting_approval") {
        const scope = waits().get(runId);
        if (scope) {
          waits().delete(runId);
          deps.kv.delete(waitingKey(runId));
          queue(approvalAnswered({ runId }), { scope });
        }
      }
      if (event.type === "done" && event.status === "completed" && event.reply) {
        const run = deps.run(runId);
        const origin = run?.origin;
        const behavior = origin?.trigger.startsWith("behavior:") ? origin.trigger.slice("behavior:".length) : null;
        if (run && behavior && deps.notifies(behavior)) {
          // A run a person's message set off tells that person, a scheduled or idle one (said by no one)
          // everyone who may chat with the agent, one an operator's token or a door set off no one.
          // Never whoever has the agent open now: the result is there.
          const person = isPersonName(origin?.name) ? origin.name : undefined;
          if (origin?.name && !person) return;
          const notice = behaviorNotice(
            {
              project: deps.project(),
              agent: deps.agent(),
              behavior: behavior.slice(behavior.indexOf("/") + 1),
              sessionId: run.sessionId,
              result: event.reply.content,
            },
            deps.redact,
          );
          queue(notice, { scope: "chat", ...(person ? { person } : {}), unlessLooking: true });
          return;
        }
        const person = origin?.name;
        // Only a person's own message notifies (also one a behavior took: its run names who said it),
        // and only a person has devices: a peer agent's question (its origin names the asker), an
        // operator's token or a door's turn queues no job.
        if (!run || !(origin?.trigger === "message" || behavior) || !isPersonName(person)) return;
        const notice = replyNotice(
          { project: deps.project(), agent: deps.agent(), runId, sessionId: run.sessionId, reply: event.reply.content },
          deps.redact,
        );
        queue(notice, { scope: "chat", person, unlessLooking: true });
      }
    },
  };
}

export type PushNotices = ReturnType<typeof makePushNotices>;
