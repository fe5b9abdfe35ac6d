/**
 * How the answers of a fan-out combine. The one list every door shares (DSL `(policy …)`, the JSON
 * script, the API, the `agent.fanout` tool, workflow joins).
 */
export const fanOutPolicies = ["all", "first", "majority", "vote", "critique", "review"] as const;
export type FanOutPolicy = (typeof fanOutPolicies)[number];

/** What happens when the leading answers of a `majority` or `vote` have the same count. */
export const tieRules = ["none", "first-listed"] as const;
export type TieRule = (typeof tieRules)[number];

export interface FanOutReply {
  target: string;
  /** Which ask this answers (fanout-steps `FanOutAsk.key`); the target's name when absent (its first ask). */
  key?: string;
  answer?: string;
  error?: string;
  /** When it arrived (epoch ms), for the trace. */
  at?: number;
}

/**
 * Why a fan-out ended as it did: `decided` (an answer), `failed` (nobody usable answered),
 * `no_majority`, `tie` (a vote whose leaders tie under tie rule `none`), `rejected` (review
 * retries spent without every reviewer accepting).
 */
export type FanOutOutcome = "decided" | "failed" | "no_majority" | "tie" | "rejected";

export interface FanOutResult {
  policy: FanOutPolicy;
  /** False when no usable answer came out; `outcome` says why. */
  ok: boolean;
  outcome: FanOutOutcome;
  /** The combined answer, or why there is none. */
  answer: string;
  replies: FanOutReply[];
  /** Majority and vote: count (or weight) per normalised answer. */
  votes?: Record<string, number>;
  /** Critique: revisions made; review: drafts written. */
  rounds?: number;
  /** Review: the last reviewers' reasons when rejected. */
  reasons?: string[];
  /** The target whose answer decided (first, majority, vote). */
  decidedBy?: string;
}

export type Decision = { done: false } | ({ done: true } & FanOutResult);

export const answered = (r: FanOutReply): r is FanOutReply & { answer: string } =>
  r.error === undefined && r.answer !== undefined;
export const replyLine = (r: FanOutReply) =>
  answered(r) ? `${r.target}: ${r.answer}` : `${r.target} failed: ${r.error ?? "no answer"}`;

/** Answers compared for a vote: case, spacing and trailing punctuation do not count. */
export function normaliseAnswer(answer: string): string {
  return answer
    .trim()
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[.!?。]+$/u, "");
}

/**
 * Every target answers; the combined answer lists each one, in target order.
 * @example
 * combineAll(["a", "b"], [{ target: "b", answer: "2" }, { target: "a", answer: "1" }]).answer; // "a: 1\nb: 2"
 */
export function combineAll(targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  if (replies.length < targets.length) return { done: false };
  const ordered = targets.map((t) => replies.find((r) => r.target === t) ?? { target: t, error: "no answer" });
  const ok = ordered.some(answered);
  return {
    done: true,
    policy: "all",
    ok,
    outcome: ok ? "decided" : "failed",
    answer: ordered.map(replyLine).join("\n"),
    replies: ordered,
  };
}

/** The first usable answer wins (the engine then cancels the others); errors are skipped until every target has failed. */
export function combineFirst(targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  const winner = replies.find(answered);
  if (winner)
    return {
      done: true,
      policy: "first",
      ok: true,
      outcome: "decided",
      answer: winner.answer,
      replies: [...replies],
      decidedBy: winner.target,
    };
  if (replies.length < targets.length) return { done: false };
  return {
    done: true,
    policy: "first",
    ok: false,
    outcome: "failed",
    answer: `no target answered: ${replies.map(replyLine).join("; ")}`,
    replies: [...replies],
  };
}

/** Weight of each normalised answer, and which target first gave it (target order). */
function tally(targets: readonly string[], replies: readonly FanOutReply[], weightOf: (target: string) => number) {
  // No prototype: an answer that normalises to "constructor" or "__proto__" is a vote like any other.
  const votes: Record<string, number> = Object.create(null) as Record<string, number>;
  const firstBy = new Map<string, { target: string; text: string; rank: number }>();
  for (const r of replies.filter(answered)) {
    const key = normaliseAnswer(r.answer);
    votes[key] = (votes[key] ?? 0) + weightOf(r.target);
    const rank = targets.indexOf(r.target);
    const seen = firstBy.get(key);
    if (!seen || rank < seen.rank) firstBy.set(key, { target: r.target, text: r.answer, rank });
  }
  const ranked = Object.entries(votes).sort((a, b) => b[1] - a[1] || firstBy.get(a[0])!.rank - firstBy.get(b[0])!.rank);
  return { votes, firstBy, ranked };
}

const tallyText = (votes: Record<string, number>) =>
  Object.entries(votes)
    .map(([k, v]) => `"${k}" ${v}`)
    .join(", ") || "no answers";

/**
 * More than half of the targets give the same answer (normalised). Decides as soon as one answer
 * has a majority, or as soon as none can reach one any more: then the outcome is `no_majority`,
 * unless tie rule `first-listed` applies (the leaders tie with every answer in: the leader given by
 * the target listed first wins).
 * @example
 * combineMajority(["a", "b", "c"], [{ target: "a", answer: "Yes" }, { target: "c", answer: "yes." }]);
 * // { done: true, ok: true, answer: "Yes", votes: { yes: 2 }, ... }
 */
export function combineMajority(
  targets: readonly string[],
  replies: readonly FanOutReply[],
  tie: TieRule = "none",
): Decision {
  const needed = Math.floor(targets.length / 2) + 1;
  const { votes, firstBy, ranked } = tally(targets, replies, () => 1);
  const [leader, count] = ranked[0] ?? ["", 0];
  const base = { done: true as const, policy: "majority" as const, replies: [...replies], votes };
  if (count >= needed)
    return {
      ...base,
      ok: true,
      outcome: "decided",
      answer: firstBy.get(leader)!.text,
      decidedBy: firstBy.get(leader)!.target,
    };
  const outstanding = targets.length - replies.length;
  if (count + outstanding >= needed) return { done: false };
  // Still open answers could break a tie: the rule applies once every answer is in.
  if (outstanding > 0 && tie === "first-listed") return { done: false };
  const tied = ranked.length > 1 && ranked[1]![1] === count;
  if (tie === "first-listed" && tied && count > 0)
    return {
      ...base,
      ok: true,
      outcome: "decided",
      answer: firstBy.get(leader)!.text,
      decidedBy: firstBy.get(leader)!.target,
    };
  return {
    ...base,
    ok: false,
    outcome: "no_majority",
    answer: `no majority among ${targets.length} agents (${needed} needed): ${tallyText(votes)}`,
  };
}

/**
 * Weighted vote: each target's answer counts its weight (default 1); the answer with the most
 * weight wins. Decides as soon as the leader cannot be caught by the weight still to answer; a tie
 * at the top is outcome `tie` under rule `none`, the first-listed leader under `first-listed`.
 * @example
 * combineVote(["a", "b", "c"], [{ target: "a", answer: "x" }, { target: "b", answer: "y" }, { target: "c", answer: "y" }], { a: 3 }).answer; // "x"
 */
export function combineVote(
  targets: readonly string[],
  replies: readonly FanOutReply[],
  weights: Readonly<Record<string, number>> = {},
  tie: TieRule = "none",
): Decision {
  const weightOf = (t: string) => (Object.hasOwn(weights, t) ? weights[t]! : 1);
  const { votes, firstBy, ranked } = tally(targets, replies, weightOf);
  const outstanding = targets
    .filter((t) => !replies.some((r) => r.target === t))
    .reduce((sum, t) => sum + weightOf(t), 0);
  const [leader, weight] = ranked[0] ?? ["", 0];
  const second = ranked[1]?.[1] ?? 0;
  const base = { done: true as const, policy: "vote" as const, replies: [...replies], votes };
  if (ranked.length && weight > second + outstanding)
    return {
      ...base,
      ok: true,
      outcome: "decided",
      answer: firstBy.get(leader)!.text,
      decidedBy: firstBy.get(leader)!.target,
    };
  if (outstanding > 0) return { done: false };
  if (!ranked.length)
    return {
      ...base,
      ok: false,
      outcome: "failed",
      answer: `no target answered: ${replies.map(replyLine).join("; ")}`,
    };
  if (tie === "first-listed")
    return {
      ...base,
      ok: true,
      outcome: "decided",
      answer: firstBy.get(leader)!.text,
      decidedBy: firstBy.get(leader)!.target,
    };
  return { ...base, ok: false, outcome: "tie", answer: `the vote is tied: ${tallyText(votes)}` };
}
