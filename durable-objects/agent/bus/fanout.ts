import { and, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { fanOutSteps, type FanOutReply, type FanOutResult, type FanOutSpec } from "../../../core/bus";
import type { RunPrincipal } from "../../../core/auth";
import type { Clock } from "../../../core/ports";
import * as schema from "../schema";

/** Fan-outs wait under a pseudo run id, so their answers are told apart from a run's tool calls. */
export const fanOutPrefix = "fanout:";

export type FanOutInput = Partial<FanOutSpec> & {
  /**
   * The caller's id for this fan-out. A second call with the same id (the caller's first call was
   * cut off by an eviction) waits on the same fan-out: no question is asked twice.
   */
  id?: string;
  targets: string[];
  question: string;
};

type Origin = { conversationId: string; depth: number };
type ReplyTo = { runId: string; callId: string };
type Row = typeof schema.busFanOuts.$inferSelect;

export interface FanOutDeps {
  db: DrizzleSqliteDODatabase<typeof schema>;
  clock: Clock;
  transaction<T>(fn: () => T): T;
  /** Sends one question whose answer comes back through `reply(group, key, …)`. */
  send(
    group: string,
    key: string,
    target: string,
    question: string,
    origin: Origin,
    principal?: RunPrincipal,
  ): Promise<void>;
  /** The fan-out was decided: questions still open are cancelled (bus `cancel`), their answers no longer awaited. */
  cancelOpen(group: string, reason: string): Promise<unknown>;
  /**
   * The output gates on what a fan-out sends or decides: why `text` may not leave, or null.
   * A question refused is that target's failure; a decision refused is the fan-out's.
   */
  screen(text: string, runId?: string): string | null;
  /** Writes a step of the fan-out's own trace (run id = its group) and, when a run asked for it, of that run's. */
  trace(runId: string, name: string, data: Record<string, unknown>): void;
  /** Hands the decision to whoever `replyTo` names (a run's tool call, a workflow step). */
  hand(replyTo: ReplyTo, result: FanOutResult): void;
}

/** The spec of a row (rows written before specs existed: policy, targets and question). */
export const specOf = (row: Row): FanOutSpec =>
  (row.spec as FanOutSpec | null) ?? {
    policy: row.policy as FanOutSpec["policy"],
    targets: row.targets,
    question: row.question,
  };

/**
 * The fan-out engine: one question to several connections, answers combined under a policy by
 * core/bus `fanOutSteps` (critique and review ask in rounds). The fan-out, its spec, its replies and
 * its decision are rows (`bus_fanouts`), each question a `bus_outbox` row keyed by its ask: answers
 * that arrive after an eviction still decide it, `recover` asks whatever an eviction kept from being
 * asked, no ask is sent twice, and only the promise a caller awaits is in memory. Scripts (`ask`
 * steps), the API, the `agent.fanout` tool and workflow steps all start fan-outs here.
 */
export function makeFanOuts(deps: FanOutDeps) {
  const { db, clock } = deps;
  const waiters = new Map<string, Set<(result: FanOutResult) => void>>();
  const get = (group: string): Row | undefined =>
    db.select().from(schema.busFanOuts).where(eq(schema.busFanOuts.id, group)).get();

  function wait(group: string): Promise<FanOutResult> {
    return new Promise((resolve) => {
      const set = waiters.get(group) ?? new Set();
      set.add(resolve);
      waiters.set(group, set);
    });
  }

  function traceBoth(row: Row, name: string, data: Record<string, unknown>) {
    deps.trace(row.id, name, data);
    const replyTo = row.replyTo as ReplyTo | null;
    if (replyTo && !replyTo.runId.startsWith("workflow:"))
      deps.trace(replyTo.runId, name, { fanOut: row.id.slice(fanOutPrefix.length), ...data });
  }

  async function settled(row: Row): Promise<void> {
    const result = row.result as FanOutResult;
    traceBoth(row, "fanout_decided", {
      policy: result.policy,
      ok: result.ok,
      outcome: result.outcome,
      answer: result.answer,
      ...(result.votes ? { votes: result.votes } : {}),
      ...(result.rounds !== undefined ? { rounds: result.rounds } : {}),
      replies: result.replies,
    });
    const set = waiters.get(row.id);
    waiters.delete(row.id);
    for (const resolve of set ?? []) resolve(result);
    const replyTo = row.replyTo as ReplyTo | null;
    if (replyTo) deps.hand(replyTo, result);
    // `first` (and a majority or vote decided early): the others' work is no longer wanted.
    await deps.cancelOpen(
      row.id,
      `fan-out ${row.id.slice(fanOutPrefix.length)} was decided (${result.policy}: ${result.outcome})`,
    );
  }

  /** Asks every ask due by now that was neither sent nor answered (after a start, a reply, or an eviction). */
  async function askDue(row: Row): Promise<void> {
    const origin = { conversationId: row.conversationId, depth: row.depth };
    for (const ask of fanOutSteps(specOf(row), row.replies).asks) {
      // Checked right before each send, whose request row is written before its first await: two
      // askDue running at once (a start and an early answer) never ask one key twice.
      const sent = db
        .select({ id: schema.busOutbox.id })
        .from(schema.busOutbox)
        .where(and(eq(schema.busOutbox.runId, row.id), eq(schema.busOutbox.callId, ask.key)))
        .get();
      const current = get(row.id);
      if (sent || current?.status !== "waiting" || current.replies.some((r) => (r.key ?? r.target) === ask.key))
        continue;
      const refused = deps.screen(ask.question, (row.replyTo as ReplyTo | null)?.runId);
      if (refused !== null) {
        await reply(row.id, ask.key, {
          error: `the question to '${ask.target}' was refused by the output gates: ${refused}`,
        });
        return;
      }
      traceBoth(row, "fanout_asked", { key: ask.key, target: ask.target, question: ask.question });
      await deps.send(row.id, ask.key, ask.target, ask.question, origin, specOf(row).principal);
    }
  }

  /** An answer (or error) for one ask of a fan-out; a repeat, or one after the decision, changes nothing. */
  async function reply(group: string, key: string, got: { answer?: string; error?: string }): Promise<void> {
    const changed = deps.transaction(() => {
      const row = get(group);
      if (row?.status !== "waiting" || row.replies.some((r) => (r.key ?? r.target) === key)) return undefined;
      const spec = specOf(row);
      const ask = fanOutSteps(spec, row.replies).asks.find((a) => a.key === key);
      if (!ask) return undefined;
      const replies: FanOutReply[] = [
        ...row.replies,
        {
          target: ask.target,
          key,
          ...(got.error !== undefined ? { error: got.error } : { answer: got.answer ?? "" }),
          at: clock.now(),
        },
      ];
      let decision = fanOutSteps(spec, replies).decision;
      if (decision?.ok) {
        // The decision leaves the agent (to a caller, a run, a workflow): the output gates read it first.
        const refused = deps.screen(decision.answer, (row.replyTo as ReplyTo | null)?.runId);
        if (refused !== null)
          decision = {
            ...decision,
            ok: false,
            outcome: "failed",
            answer: `the decision was refused by the output gates: ${refused}`,
          };
      }
      return db
        .update(schema.busFanOuts)
        .set({ replies, ...(decision ? { status: "decided", result: decision, decidedAt: clock.now() } : {}) })
        .where(eq(schema.busFanOuts.id, group))
        .returning()
        .get();
    });
    if (!changed) return;
    const last = changed.replies[changed.replies.length - 1]!;
    traceBoth(changed, "fanout_answer", {
      key,
      target: last.target,
      ...(last.error !== undefined ? { error: last.error } : { answer: last.answer }),
    });
    if (changed.status === "decided") return settled(changed);
    await askDue(changed);
  }

  return {
    /**
     * Starts a fan-out (or finds the one with this id) and settles with its decision. `replyTo`: a run's
     * call or a workflow's step that is handed the decision even after an eviction.
     */
    async start(
      input: FanOutInput,
      origin?: Origin,
      replyTo?: ReplyTo,
    ): Promise<{ group: string; decision: Promise<FanOutResult> }> {
      const spec: FanOutSpec = { ...input, policy: input.policy ?? "all", targets: [...new Set(input.targets)] };
      delete (spec as { id?: string }).id;
      const group = `${fanOutPrefix}${input.id ?? crypto.randomUUID()}`;
      const existing = get(group);
      if (existing?.status === "decided") {
        if (replyTo) deps.hand(replyTo, existing.result as FanOutResult);
        return { group, decision: Promise.resolve(existing.result as FanOutResult) };
      }
      const decision = wait(group);
      const row =
        existing ??
        db
          .insert(schema.busFanOuts)
          .values({
            id: group,
            targets: spec.targets,
            question: spec.question,
            policy: spec.policy,
            spec,
            ...(replyTo ? { replyTo } : {}),
            conversationId: origin?.conversationId ?? group,
            depth: origin?.depth ?? 0,
            replies: [],
            status: "waiting",
            createdAt: clock.now(),
          })
          .returning()
          .get();
      if (!existing) traceBoth(row, "fanout_started", { spec });
      await askDue(row);
      return { group, decision };
    },

    /** The bus hands an answer (or error) for ask `key` here. */
    reply,

    /** After a start: asks whatever an eviction kept from being asked. */
    async recover(): Promise<void> {
      for (const row of db.select().from(schema.busFanOuts).where(eq(schema.busFanOuts.status, "waiting")).all())
        await askDue(row);
    },

    /** A fan-out as the API shows it: spec, each ask with its state, the decision. */
    view(id: string) {
      const row = get(`${fanOutPrefix}${id}`);
      if (!row) return undefined;
      const { principal: _by, ...spec } = specOf(row);
      const asks = fanOutSteps(spec, row.replies).asks.map((ask) => {
        const got = row.replies.find((r) => (r.key ?? r.target) === ask.key);
        const sent = db
          .select({ status: schema.busOutbox.status })
          .from(schema.busOutbox)
          .where(and(eq(schema.busOutbox.runId, row.id), eq(schema.busOutbox.callId, ask.key)))
          .get();
        const state = got
          ? got.error !== undefined
            ? "failed"
            : "answered"
          : sent?.status === "abandoned"
            ? "cancelled"
            : sent
              ? "asked"
              : "due";
        return {
          ...ask,
          state,
          ...(got?.answer !== undefined ? { answer: got.answer } : {}),
          ...(got?.error !== undefined ? { error: got.error } : {}),
        };
      });
      return {
        id,
        status: row.status as "waiting" | "decided",
        spec,
        asks,
        result: (row.result as FanOutResult | null) ?? null,
        createdAt: row.createdAt,
        decidedAt: row.decidedAt ?? null,
      };
    },

    waiting(): number {
      return db
        .select({ id: schema.busFanOuts.id })
        .from(schema.busFanOuts)
        .where(eq(schema.busFanOuts.status, "waiting"))
        .all().length;
    },
  };
}
