/** How the answers of a fan-out `ask` combine (core/dsl `Behavior.policy`). */
export type FanOutPolicy = "all" | "first" | "majority" | "critique";

export interface FanOutReply {
  target: string;
  answer?: string;
  error?: string;
}

export interface FanOutResult {
  policy: FanOutPolicy;
  /** False when no usable answer came out (every target failed, or no majority). */
  ok: boolean;
  /** The combined answer, or why there is none. */
  answer: string;
  replies: FanOutReply[];
  /** Majority only: votes per normalised answer. */
  votes?: Record<string, number>;
}

export type Decision = { done: false } | ({ done: true } & FanOutResult);

const answered = (r: FanOutReply): r is FanOutReply & { answer: string } => r.error === undefined && r.answer !== undefined;
const line = (r: FanOutReply) => (answered(r) ? `${r.target}: ${r.answer}` : `${r.target} failed: ${r.error ?? "no answer"}`);

/** Answers compared for a vote: case, spacing and trailing punctuation do not count. */
export function normaliseAnswer(answer: string): string {
  return answer.trim().toLowerCase().replace(/\s+/g, " ").replace(/[.!?。]+$/u, "");
}

/**
 * Every target answers; the combined answer lists each one, in target order.
 * @example
 * combineAll(["a", "b"], [{ target: "b", answer: "2" }, { target: "a", answer: "1" }]).answer; // "a: 1\nb: 2"
 */
export function combineAll(targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  if (replies.length < targets.length) return { done: false };
  const ordered = targets.map((t) => replies.find((r) => r.target === t) ?? { target: t, error: "no answer" });
  return { done: true, policy: "all", ok: ordered.some(answered), answer: ordered.map(line).join("\n"), replies: ordered };
}

/** The first usable answer wins; errors are skipped until every target has failed. */
export function combineFirst(targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  const winner = replies.find(answered);
  if (winner) return { done: true, policy: "first", ok: true, answer: winner.answer, replies: [...replies] };
  if (replies.length < targets.length) return { done: false };
  return { done: true, policy: "first", ok: false, answer: `no target answered: ${replies.map(line).join("; ")}`, replies: [...replies] };
}

/**
 * More than half of the targets give the same answer (normalised). Decides as soon as one answer has
 * a majority, or as soon as none can reach one any more.
 * @example
 * combineMajority(["a", "b", "c"], [{ target: "a", answer: "Yes" }, { target: "c", answer: "yes." }]);
 * // { done: true, ok: true, answer: "Yes", votes: { yes: 2 }, ... }
 */
export function combineMajority(targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  const needed = Math.floor(targets.length / 2) + 1;
  // No prototype: an answer that normalises to "constructor" or "__proto__" is a vote like any other.
  const votes: Record<string, number> = Object.create(null) as Record<string, number>;
  const firstText = new Map<string, string>();
  for (const r of replies.filter(answered)) {
    const key = normaliseAnswer(r.answer);
    votes[key] = (votes[key] ?? 0) + 1;
    if (!firstText.has(key)) firstText.set(key, r.answer);
  }
  const [leader, count] = Object.entries(votes).sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
  if (count >= needed) return { done: true, policy: "majority", ok: true, answer: firstText.get(leader) ?? leader, replies: [...replies], votes };
  const outstanding = targets.length - replies.length;
  if (count + outstanding >= needed) return { done: false };
  const tally = Object.entries(votes).map(([k, v]) => `"${k}" ${v}`).join(", ") || "no answers";
  return { done: true, policy: "majority", ok: false, answer: `no majority among ${targets.length} agents (${needed} needed): ${tally}`, replies: [...replies], votes };
}

/** What the critics are asked once the first target (the proposer) has answered. */
export function critiquePrompt(question: string, proposer: string, proposal: string): string {
  return `Critique this answer from '${proposer}' to the question "${question}". Point out errors and gaps, briefly.\n\nAnswer:\n${proposal}`;
}

/**
 * The proposer's answer followed by the critics' remarks. Decides when every critic has replied.
 * The proposer is `targets[0]`; its reply is the first of `replies`.
 */
export function combineCritique(targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  const [proposer, ...critics] = targets;
  const proposal = replies.find((r) => r.target === proposer);
  if (!proposal) return { done: false };
  if (!answered(proposal)) return { done: true, policy: "critique", ok: false, answer: `the proposer failed: ${line(proposal)}`, replies: [...replies] };
  const remarks = critics.map((c) => replies.find((r) => r.target === c && r !== proposal));
  if (remarks.some((r) => r === undefined)) return { done: false };
  const text = [`Proposal from ${proposer}: ${proposal.answer}`, ...remarks.map((r) => `Critique ${line(r!)}`)].join("\n");
  return { done: true, policy: "critique", ok: true, answer: text, replies: [...replies] };
}

/**
 * Combines the replies so far under a policy: `{ done: false }` while more replies can change the
 * outcome. Pure, so a behavior can call it after every reply.
 * @example
 * decide("first", ["a", "b"], [{ target: "b", answer: "42" }]); // { done: true, ok: true, answer: "42", ... }
 */
export function decide(policy: FanOutPolicy, targets: readonly string[], replies: readonly FanOutReply[]): Decision {
  switch (policy) {
    case "all":
      return combineAll(targets, replies);
    case "first":
      return combineFirst(targets, replies);
    case "majority":
      return combineMajority(targets, replies);
    case "critique":
      return combineCritique(targets, replies);
  }
}
