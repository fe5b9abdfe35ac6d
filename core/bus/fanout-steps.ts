import type { RunPrincipal } from "../auth/principal";
import {
  answered,
  combineAll,
  combineFirst,
  combineMajority,
  combineVote,
  normaliseAnswer,
  replyLine,
  type Decision,
  type FanOutPolicy,
  type FanOutReply,
  type FanOutResult,
  type TieRule,
} from "./policies";

/** What a fan-out is asked to do: persisted as it is, so the steps below rebuild it after an eviction. */
export interface FanOutSpec {
  policy: FanOutPolicy;
  /** Critique: the first proposes, the rest critique. Review: the first writes, the rest review. */
  targets: string[];
  question: string;
  /** Vote: weight per target (default 1). */
  weights?: Record<string, number>;
  /** Critique: rounds of critique and revision (1 to 3, default 1). */
  rounds?: number;
  /** Review: drafts after the first when a reviewer rejects (0 to 3, default 1). */
  retries?: number;
  /** Majority and vote: what a tie at the top means (default `none`: no winner). */
  tie?: TieRule;
  /** Whom the fan-out acts for: its questions carry it, so the asked agents' runs act with no more. */
  principal?: RunPrincipal;
}

/** One question to one target. `key` names it for good: the engine asks each key once, ever. */
export interface FanOutAsk {
  key: string;
  target: string;
  question: string;
}

/** The ask key of a target's n-th question (0: its name, as for every single-question policy). */
export const askKey = (target: string, n: number) => (n === 0 ? target : `${target}#${n}`);

/** What the critics are asked about the current proposal. */
export function critiquePrompt(question: string, proposer: string, proposal: string): string {
  return `Critique this answer from '${proposer}' to the question "${question}". Point out errors and gaps, briefly. Answer "no issues" if you have none.\n\nAnswer:\n${proposal}`;
}

/** What the proposer is asked once the critics answered. */
export function revisePrompt(question: string, proposal: string, critiques: readonly FanOutReply[]): string {
  return `Revise your answer to the question "${question}" in the light of these critiques. Reply with the revised answer only.\n\nYour answer:\n${proposal}\n\nCritiques:\n${critiques.map(replyLine).join("\n")}`;
}

/** What a reviewer is asked about a draft. */
export function reviewPrompt(question: string, author: string, draft: string): string {
  return `Review this answer from '${author}' to the question "${question}". Reply "ACCEPT" if it is right, or "REJECT: " followed by your reasons.\n\nAnswer:\n${draft}`;
}

/** What the author is asked after a rejection. */
export function redraftPrompt(question: string, draft: string, reasons: readonly string[]): string {
  return `Your answer to the question "${question}" was rejected. Write a better answer, addressing every reason. Reply with the answer only.\n\nYour answer:\n${draft}\n\nReasons:\n${reasons.map((r) => `- ${r}`).join("\n")}`;
}

const noIssues = /^(no issues?|no critiques?|lgtm|looks good( to me)?|none|ok|okay|approved?|accept(ed)?)$/;
/** A critic with nothing to add (its critique needs no revision). */
export const criticAgrees = (answer: string) => noIssues.test(normaliseAnswer(answer));

/** A reviewer's verdict: accept, or reject with the reasons it gave (anything but an acceptance rejects). */
export function verdictOf(reply: FanOutReply): { accepted: true } | { accepted: false; reason: string } {
  if (!answered(reply))
    return { accepted: false, reason: `${reply.target} could not review: ${reply.error ?? "no answer"}` };
  const text = reply.answer.trim();
  if (/^(accept(ed)?|approved?|lgtm)\b/i.test(text)) return { accepted: true };
  const reason = text.replace(/^(reject(ed)?)\s*[:.,-]?\s*/i, "").trim();
  return { accepted: false, reason: `${reply.target}: ${reason || "rejected without a reason"}` };
}

type Steps = { asks: FanOutAsk[]; decision?: FanOutResult };

const finished = (d: Decision): FanOutResult | undefined => {
  if (!d.done) return undefined;
  const { done: _done, ...result } = d;
  return result;
};

/** The reply to an ask, by key (an old reply without a key answers its target's first ask). */
const replyTo = (replies: readonly FanOutReply[], key: string) => replies.find((r) => (r.key ?? r.target) === key);

/**
 * A fan-out as a pure function of its spec and the replies so far: every ask that should have been
 * made by now (the engine sends those it has not sent) and, once there is one, the decision. Pure
 * and cumulative, so the engine rebuilds where a fan-out stands from its row after an eviction.
 * @example
 * fanOutSteps({ policy: "critique", targets: ["p", "c"], question: "q" }, []).asks; // [{ key: "p", target: "p", question: "q" }]
 */
export function fanOutSteps(spec: FanOutSpec, replies: readonly FanOutReply[]): Steps {
  const { policy, targets, question } = spec;
  const everyone = targets.map((target) => ({ key: target, target, question }));
  switch (policy) {
    case "all":
      return { asks: everyone, decision: finished(combineAll(targets, replies)) };
    case "first":
      return { asks: everyone, decision: finished(combineFirst(targets, replies)) };
    case "majority":
      return { asks: everyone, decision: finished(combineMajority(targets, replies, spec.tie)) };
    case "vote":
      return { asks: everyone, decision: finished(combineVote(targets, replies, spec.weights, spec.tie)) };
    case "critique":
      return critiqueSteps(spec, replies);
    case "review":
      return reviewSteps(spec, replies);
  }
}

/** Proposal, then per round: every critic sees the proposal, the proposer revises. Ends early when every critic agrees. */
function critiqueSteps(spec: FanOutSpec, replies: readonly FanOutReply[]): Steps {
  const [proposer, ...critics] = spec.targets as [string, ...string[]];
  const rounds = spec.rounds ?? 1;
  const asks: FanOutAsk[] = [{ key: proposer, target: proposer, question: spec.question }];
  const result = (ok: boolean, answer: string, revisions: number): Steps => ({
    asks,
    decision: {
      policy: "critique",
      ok,
      outcome: ok ? "decided" : "failed",
      answer,
      replies: [...replies],
      rounds: revisions,
    },
  });
  const first = replyTo(replies, proposer);
  if (!first) return { asks };
  if (!answered(first)) return result(false, `the proposer failed: ${replyLine(first)}`, 0);
  let proposal = first.answer;
  for (let round = 1; round <= rounds; round++) {
    const critiques: FanOutReply[] = [];
    for (const critic of critics) {
      const ask = {
        key: askKey(critic, round - 1),
        target: critic,
        question: critiquePrompt(spec.question, proposer, proposal),
      };
      asks.push(ask);
      const got = replyTo(replies, ask.key);
      if (got) critiques.push(got);
    }
    if (critiques.length < critics.length) return { asks };
    const remarks = critiques.filter((c) => answered(c) && !criticAgrees(c.answer!));
    // Nothing to revise: every critic agreed (or could not answer).
    if (!remarks.length) return result(true, proposal, round - 1);
    const revise = {
      key: askKey(proposer, round),
      target: proposer,
      question: revisePrompt(spec.question, proposal, remarks),
    };
    asks.push(revise);
    const revised = replyTo(replies, revise.key);
    if (!revised) return { asks };
    // A failed revision keeps the proposal it was meant to improve.
    if (!answered(revised)) return result(true, proposal, round - 1);
    proposal = revised.answer;
  }
  return result(true, proposal, rounds);
}

/** A draft, every reviewer's verdict; on a rejection the author redrafts with the reasons, `retries` times at most. */
function reviewSteps(spec: FanOutSpec, replies: readonly FanOutReply[]): Steps {
  const [author, ...reviewers] = spec.targets as [string, ...string[]];
  const retries = spec.retries ?? 1;
  const asks: FanOutAsk[] = [];
  const end = (ok: boolean, answer: string, drafts: number, reasons?: string[]): Steps => ({
    asks,
    decision: {
      policy: "review",
      ok,
      outcome: ok ? "decided" : reasons ? "rejected" : "failed",
      answer,
      replies: [...replies],
      rounds: drafts,
      ...(reasons ? { reasons } : {}),
    },
  });
  let draft = "";
  let reasons: string[] = [];
  for (let attempt = 0; attempt <= retries; attempt++) {
    const write = {
      key: askKey(author, attempt),
      target: author,
      question: attempt === 0 ? spec.question : redraftPrompt(spec.question, draft, reasons),
    };
    asks.push(write);
    const written = replyTo(replies, write.key);
    if (!written) return { asks };
    if (!answered(written))
      return attempt === 0
        ? end(false, `the author failed: ${replyLine(written)}`, 0)
        : end(false, `rejected, and the author failed to redraft: ${replyLine(written)}`, attempt, reasons);
    draft = written.answer;
    const verdicts: ReturnType<typeof verdictOf>[] = [];
    for (const reviewer of reviewers) {
      const ask = {
        key: askKey(reviewer, attempt),
        target: reviewer,
        question: reviewPrompt(spec.question, author, draft),
      };
      asks.push(ask);
      const got = replyTo(replies, ask.key);
      if (got) verdicts.push(verdictOf(got));
    }
    if (verdicts.length < reviewers.length) return { asks };
    reasons = verdicts.flatMap((v) => (v.accepted ? [] : [v.reason]));
    if (!reasons.length) return end(true, draft, attempt + 1);
  }
  return end(
    false,
    `rejected after ${retries + 1} draft(s): ${reasons.join("; ")}\n\nLast draft:\n${draft}`,
    retries + 1,
    reasons,
  );
}
