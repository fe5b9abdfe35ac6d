import { PantheonError } from "../../core/errors";
import { actorOf, authorizeWork, type Principal } from "../../core/work";
import type * as schema from "./schema";

type FeatureRow = typeof schema.feature.$inferSelect;

/** One of the planner's questions before it writes the plan (clarify), and its answer once given. */
export interface PlanQuestion {
  id: string;
  question: string;
  askedBy: string;
  askedAt: number;
  /** The orchestrator's session it asked in: the answer goes to it there. */
  session: string | null;
  /** The run that asked: the answer's turn acts with no more rights than it had. */
  runId: string | null;
  answer: string | null;
  answeredBy: string | null;
  answeredAt: number | null;
}

/**
 * Clarify: the orchestrating agent asks a person a bounded number of questions before it writes the
 * plan. A question waits in the inbox (GET /api/approvals, kind "question"); it is answered only as
 * an answer, and the answer goes to the orchestrator as its next message.
 */
export function makeQuestions(deps: { row: () => FeatureRow; touch: (patch: Partial<FeatureRow>) => void }) {
  const all = () => deps.row().questions as PlanQuestion[];
  return {
    all,
    open: () => all().filter((q) => q.answer === null),

    ask(question: string, by: Principal, run?: { id: string; sessionId: string }): PlanQuestion & { left: number } {
      const f = deps.row();
      authorizeWork("plan.write", by, { orchestrator: f.orchestrator });
      const text = question.trim();
      if (!text)
        throw new PantheonError("validation_failed", "question: the question to ask the person, in words", {
          details: { issues: [{ path: ["question"], message: "a non-empty question" }] },
        });
      if (text.length > 4000)
        throw new PantheonError("validation_failed", "question: at most 4,000 characters", {
          details: { issues: [{ path: ["question"], message: "at most 4,000 characters" }] },
        });
      const asked = all();
      const same = asked.find((q) => q.question === text);
      if (same) return { ...same, left: Math.max(0, f.maxQuestions - asked.length) };
      if (asked.length >= f.maxQuestions) {
        throw new PantheonError(
          "conflict",
          `you asked ${asked.length} question(s), the most this feature allows (${f.maxQuestions}): write the plan with what you know, and say what you assumed`,
          { details: { asked: asked.length, max: f.maxQuestions } },
        );
      }
      const q: PlanQuestion = {
        id: `q-${crypto.randomUUID().slice(0, 8)}`,
        question: text,
        askedBy: actorOf(by),
        askedAt: Date.now(),
        session: run?.sessionId ?? null,
        runId: run?.id ?? null,
        answer: null,
        answeredBy: null,
        answeredAt: null,
      };
      deps.touch({ questions: [...asked, q] });
      return { ...q, left: f.maxQuestions - asked.length - 1 };
    },

    /** A person (approve scope) answers; answering again the same way answers the same (a retry). */
    answer(
      id: string,
      answer: string,
      by: Principal,
    ): { question: PlanQuestion; orchestrator: string; first: boolean } {
      const f = deps.row();
      authorizeWork("task.answer", by, { orchestrator: f.orchestrator });
      const asked = all();
      const q = asked.find((x) => x.id === id);
      if (!q)
        throw new PantheonError(
          "not_found",
          `question '${id}' does not exist${asked.length ? ` (questions: ${asked.map((x) => x.id).join(", ")})` : " (the planner asked none)"}`,
          { details: { question: id } },
        );
      if (q.answer !== null) {
        if (q.answer === answer) return { question: q, orchestrator: f.orchestrator, first: false };
        throw new PantheonError("conflict", `question '${id}' was already answered by ${q.answeredBy}`, {
          details: { question: id },
        });
      }
      const answered = { ...q, answer, answeredBy: actorOf(by), answeredAt: Date.now() };
      deps.touch({ questions: asked.map((x) => (x.id === id ? answered : x)) });
      return { question: answered, orchestrator: f.orchestrator, first: true };
    },
  };
}

export type Questions = ReturnType<typeof makeQuestions>;
