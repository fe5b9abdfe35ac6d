import { critiquePrompt, decide, type FanOutPolicy, type FanOutReply, type FanOutResult } from "../../../core/bus";

/** Fan-outs wait under a pseudo run id, so their answers are told apart from a run's tool calls. */
export const fanOutPrefix = "fanout:";

export interface FanOutInput {
  targets: string[];
  question: string;
  policy?: FanOutPolicy;
}

interface Waiter {
  targets: string[];
  question: string;
  policy: FanOutPolicy;
  origin: { conversationId: string; depth: number };
  replies: FanOutReply[];
  critiquesSent: boolean;
  resolve(result: FanOutResult): void;
}

export interface FanOutDeps {
  /** Sends one request whose answer comes back through `reply(group, target, …)`. */
  send(group: string, target: string, question: string, origin: { conversationId: string; depth: number }): Promise<void>;
  /** The fan-out was decided: requests still open are no longer awaited. */
  abandon(group: string): Promise<void>;
}

/**
 * Scripted fan-out (`(ask ("a" "b" "c") …)` with `(policy :majority)`): one request per target,
 * answers combined by core/bus `decide` as they arrive. Waiters live in memory: the behavior (or
 * RPC caller) that awaits one keeps the object alive; answers for a waiter lost to an eviction are
 * recorded as ignored.
 */
export function makeFanOuts(deps: FanOutDeps) {
  const waiters = new Map<string, Waiter>();

  function check(group: string, waiter: Waiter): void {
    const decision = decide(waiter.policy, waiter.targets, waiter.replies);
    if (decision.done) {
      waiters.delete(group);
      const { done: _done, ...result } = decision;
      waiter.resolve(result);
      void deps.abandon(group);
      return;
    }
    const proposal = waiter.replies.find((r) => r.target === waiter.targets[0]);
    if (waiter.policy === "critique" && proposal?.answer !== undefined && !waiter.critiquesSent) {
      waiter.critiquesSent = true;
      const prompt = critiquePrompt(waiter.question, waiter.targets[0]!, proposal.answer);
      for (const critic of waiter.targets.slice(1)) void deps.send(group, critic, prompt, waiter.origin);
    }
  }

  return {
    start(input: FanOutInput, origin?: { conversationId: string; depth: number }): Promise<FanOutResult> {
      const targets = [...new Set(input.targets)];
      const policy = input.policy ?? "all";
      if (targets.length === 0) return Promise.resolve({ policy, ok: false, answer: "no targets to ask", replies: [] });
      const group = `${fanOutPrefix}${crypto.randomUUID()}`;
      return new Promise<FanOutResult>((resolve) => {
        const waiter: Waiter = { targets, question: input.question, policy, origin: origin ?? { conversationId: group, depth: 0 }, replies: [], critiquesSent: false, resolve };
        waiters.set(group, waiter);
        // Critique asks the proposer first; the critics see its answer.
        const first = policy === "critique" ? targets.slice(0, 1) : targets;
        for (const target of first) void deps.send(group, target, input.question, waiter.origin);
        if (policy === "critique" && targets.length === 1) waiter.critiquesSent = true;
      });
    },

    /** An answer (or error) for one target of a fan-out. */
    reply(group: string, target: string, _from: string, reply: { answer?: string; error?: string }): void {
      const waiter = waiters.get(group);
      if (!waiter) return;
      if (waiter.replies.some((r) => r.target === target)) return;
      waiter.replies.push({ target, ...(reply.error !== undefined ? { error: reply.error } : { answer: reply.answer ?? "" }) });
      check(group, waiter);
    },

    waiting(): number {
      return waiters.size;
    },
  };
}
