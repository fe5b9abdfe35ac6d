import { and, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { critiquePrompt, decide, type FanOutPolicy, type FanOutReply, type FanOutResult } from "../../../core/bus";
import type { Clock } from "../../../core/ports";
import * as schema from "../schema";

/** Fan-outs wait under a pseudo run id, so their answers are told apart from a run's tool calls. */
export const fanOutPrefix = "fanout:";

export interface FanOutInput {
  /**
   * The caller's id for this fan-out. A second call with the same id (the caller's first call was
   * cut off by an eviction) waits on the same fan-out: no question is asked twice.
   */
  id?: string;
  targets: string[];
  question: string;
  policy?: FanOutPolicy;
}

type Origin = { conversationId: string; depth: number };
type Row = typeof schema.busFanOuts.$inferSelect;

export interface FanOutDeps {
  db: DrizzleSqliteDODatabase<typeof schema>;
  clock: Clock;
  transaction<T>(fn: () => T): T;
  /** Sends one request whose answer comes back through `reply(group, target, …)`. */
  send(group: string, target: string, question: string, origin: Origin): Promise<void>;
  /** The fan-out was decided: requests still open are no longer awaited. */
  abandon(group: string): Promise<void>;
}

/**
 * Scripted fan-out (`(ask ("a" "b" "c") …)` with `(policy :majority)`): one request per target,
 * answers combined by core/bus `decide` as they arrive. The fan-out, its replies and its decision
 * are rows (`bus_fanouts`): answers that arrive after an eviction still decide it, `recover` asks
 * whoever an eviction kept from being asked, and only the promise a caller awaits is in memory.
 */
export function makeFanOuts(deps: FanOutDeps) {
  const { db, clock } = deps;
  const waiters = new Map<string, Set<(result: FanOutResult) => void>>();
  const get = (group: string): Row | undefined => db.select().from(schema.busFanOuts).where(eq(schema.busFanOuts.id, group)).get();

  function wait(group: string): Promise<FanOutResult> {
    return new Promise((resolve) => {
      const set = waiters.get(group) ?? new Set();
      set.add(resolve);
      waiters.set(group, set);
    });
  }

  function settled(group: string, result: FanOutResult): void {
    const set = waiters.get(group);
    waiters.delete(group);
    for (const resolve of set ?? []) resolve(result);
    void deps.abandon(group);
  }

  /** Who should have been asked by now: the proposer first under critique, the critics once it answered. */
  function due(row: Row): string[] {
    if (row.policy !== "critique") return row.targets;
    return row.critiquesSent ? row.targets : row.targets.slice(0, 1);
  }

  function questionFor(row: Row, target: string): string {
    if (row.policy !== "critique" || target === row.targets[0]) return row.question;
    const proposal = row.replies.find((r) => r.target === row.targets[0]);
    return critiquePrompt(row.question, row.targets[0]!, proposal?.answer ?? "");
  }

  /** Asks every due target that has no request and no reply yet (after a start, or an eviction). */
  async function askDue(row: Row): Promise<void> {
    const origin = { conversationId: row.conversationId, depth: row.depth };
    for (const target of due(row)) {
      // Checked right before each send, whose request row is written before its first await: two
      // askDue running at once (a start and an early answer) never ask one target twice.
      const asked = db.select({ id: schema.busOutbox.id }).from(schema.busOutbox).where(and(eq(schema.busOutbox.runId, row.id), eq(schema.busOutbox.callId, target))).get();
      if (asked || get(row.id)?.replies.some((r) => r.target === target)) continue;
      await deps.send(row.id, target, questionFor(row, target), origin);
    }
  }

  return {
    async start(input: FanOutInput, origin?: Origin): Promise<FanOutResult> {
      const targets = [...new Set(input.targets)];
      const policy = input.policy ?? "all";
      if (targets.length === 0) return { policy, ok: false, answer: "no targets to ask", replies: [] };
      const group = `${fanOutPrefix}${input.id ?? crypto.randomUUID()}`;
      const existing = get(group);
      if (existing?.status === "decided") return existing.result as FanOutResult;
      const result = wait(group);
      const row =
        existing ??
        db
          .insert(schema.busFanOuts)
          .values({
            id: group,
            targets,
            question: input.question,
            policy,
            conversationId: origin?.conversationId ?? group,
            depth: origin?.depth ?? 0,
            replies: [],
            critiquesSent: policy === "critique" && targets.length === 1,
            status: "waiting",
            createdAt: clock.now(),
          })
          .returning()
          .get();
      await askDue(row);
      return result;
    },

    /** An answer (or error) for one target of a fan-out; a repeat, or one after the decision, changes nothing. */
    async reply(group: string, target: string, _from: string, reply: { answer?: string; error?: string }): Promise<void> {
      const changed = deps.transaction(() => {
        const row = get(group);
        if (!row || row.status !== "waiting" || !row.targets.includes(target) || row.replies.some((r) => r.target === target)) return undefined;
        const replies: FanOutReply[] = [...row.replies, { target, ...(reply.error !== undefined ? { error: reply.error } : { answer: reply.answer ?? "" }) }];
        const decision = decide(row.policy as FanOutPolicy, row.targets, replies);
        const proposal = replies.find((r) => r.target === row.targets[0]);
        const critique = !decision.done && row.policy === "critique" && proposal?.answer !== undefined && !row.critiquesSent;
        const { done: _done, ...result } = decision.done ? decision : { done: false };
        return db
          .update(schema.busFanOuts)
          .set({ replies, critiquesSent: row.critiquesSent || critique, ...(decision.done ? { status: "decided", result, decidedAt: clock.now() } : {}) })
          .where(eq(schema.busFanOuts.id, group))
          .returning()
          .get();
      });
      if (!changed) return;
      if (changed.status === "decided") return settled(group, changed.result as FanOutResult);
      await askDue(changed);
    },

    /** After a start: asks whoever an eviction kept from being asked. */
    async recover(): Promise<void> {
      for (const row of db.select().from(schema.busFanOuts).where(eq(schema.busFanOuts.status, "waiting")).all()) await askDue(row);
    },

    /** A fan-out's decision, once there is one. */
    result(id: string): FanOutResult | undefined {
      const row = get(`${fanOutPrefix}${id}`);
      return row?.status === "decided" ? (row.result as FanOutResult) : undefined;
    },

    waiting(): number {
      return db.select({ id: schema.busFanOuts.id }).from(schema.busFanOuts).where(eq(schema.busFanOuts.status, "waiting")).all().length;
    },
  };
}
