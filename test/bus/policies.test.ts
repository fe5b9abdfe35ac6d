import { describe, expect, it } from "vitest";
import {
  checkRequest,
  combineMajority,
  combineVote,
  fanOutSpecSchema,
  fanOutSteps,
  makeRequest,
  parseBusMessage,
  retryDelaySeconds,
  type FanOutReply,
  type FanOutSpec,
} from "../../core/bus";

describe("fan-out policies", () => {
  const targets = ["a", "b", "c"];
  const steps = (spec: Partial<FanOutSpec> & { policy: FanOutSpec["policy"] }, replies: FanOutReply[]) =>
    fanOutSteps({ targets, question: "q", ...spec }, replies);

  it("all waits for every target and lists the answers in target order", () => {
    expect(
      steps({ policy: "all" }, [
        { target: "c", answer: "3" },
        { target: "a", answer: "1" },
      ]).decision,
    ).toBeUndefined();
    const done = steps({ policy: "all" }, [
      { target: "c", answer: "3" },
      { target: "a", answer: "1" },
      { target: "b", error: "down" },
    ]).decision;
    expect(done).toMatchObject({ ok: true, outcome: "decided", answer: "a: 1\nb failed: down\nc: 3" });
  });

  it("first decides on the first usable answer, skipping errors, and names who decided", () => {
    expect(steps({ policy: "first" }, [{ target: "b", error: "down" }]).decision).toBeUndefined();
    expect(
      steps({ policy: "first" }, [
        { target: "b", error: "down" },
        { target: "c", answer: "42" },
      ]).decision,
    ).toMatchObject({ ok: true, answer: "42", decidedBy: "c" });
    expect(
      steps(
        { policy: "first" },
        targets.map((t) => ({ target: t, error: "down" })),
      ).decision,
    ).toMatchObject({ ok: false, outcome: "failed" });
  });

  it("majority decides as soon as two of three agree, ignoring case and final punctuation", () => {
    expect(steps({ policy: "majority" }, [{ target: "a", answer: "Yes" }]).decision).toBeUndefined();
    expect(
      steps({ policy: "majority" }, [
        { target: "a", answer: "Yes" },
        { target: "c", answer: "yes." },
      ]).decision,
    ).toMatchObject({ ok: true, answer: "Yes", votes: { yes: 2 } });
  });

  it("majority with a split vote is the explicit outcome no_majority, not every answer passed on", () => {
    const result = steps({ policy: "majority" }, [
      { target: "a", answer: "yes" },
      { target: "b", answer: "no" },
      { target: "c", answer: "maybe" },
    ]).decision!;
    expect(result).toMatchObject({ ok: false, outcome: "no_majority" });
    expect(result.answer).toBe('no majority among 3 agents (2 needed): "yes" 1, "no" 1, "maybe" 1');
  });

  it("majority's tie rule: a 2-2 split is no majority, unless the rule is first-listed (the leader the earliest target gave)", () => {
    const four = ["a", "b", "c", "d"];
    const replies = [
      { target: "d", answer: "no" },
      { target: "a", answer: "yes" },
      { target: "c", answer: "no" },
      { target: "b", answer: "yes" },
    ];
    expect(combineMajority(four, replies)).toMatchObject({ done: true, ok: false, outcome: "no_majority" });
    expect(combineMajority(four, replies, "first-listed")).toMatchObject({
      done: true,
      ok: true,
      answer: "yes",
      decidedBy: "a",
    });
    // With an answer still out the rule waits: it could break the tie.
    expect(combineMajority(four, replies.slice(0, 3), "first-listed")).toEqual({ done: false });
  });

  it("vote weighs each target: one heavy judge outvotes two light ones, and decides before the rest once it cannot be caught", () => {
    expect(
      steps({ policy: "vote", weights: { a: 3 } }, [
        { target: "a", answer: "ship" },
        { target: "b", answer: "wait" },
        { target: "c", answer: "wait" },
      ]).decision,
    ).toMatchObject({ ok: true, answer: "ship", votes: { ship: 3, wait: 2 } });
    expect(steps({ policy: "vote", weights: { a: 3 } }, [{ target: "a", answer: "ship" }]).decision).toMatchObject({
      ok: true,
      answer: "ship",
    });
    // Equal weights: the same answers lose 1 to 2.
    expect(
      steps({ policy: "vote" }, [
        { target: "a", answer: "ship" },
        { target: "b", answer: "wait" },
        { target: "c", answer: "wait" },
      ]).decision,
    ).toMatchObject({ ok: true, answer: "wait" });
    expect(
      combineVote(
        ["a", "b"],
        [
          { target: "a", answer: "x" },
          { target: "b", answer: "y" },
        ],
      ),
    ).toMatchObject({ done: true, ok: false, outcome: "tie" });
  });

  it("critique asks the proposer first, then every critic with the proposal in its question, then the proposer to revise", () => {
    expect(steps({ policy: "critique" }, []).asks.map((a) => a.key)).toEqual(["a"]);
    const proposed = steps({ policy: "critique" }, [{ target: "a", answer: "Paris" }]);
    expect(proposed.asks.map((a) => a.key)).toEqual(["a", "b", "c"]);
    expect(proposed.asks[1]!.question).toContain("Paris");
    const critiqued = steps({ policy: "critique" }, [
      { target: "a", answer: "Paris" },
      { target: "c", answer: "no issues" },
      { target: "b", answer: "add the source" },
    ]);
    const revise = critiqued.asks.at(-1)!;
    expect(revise).toMatchObject({ key: "a#1", target: "a" });
    expect(revise.question).toContain("b: add the source");
    expect(revise.question).not.toContain("c: no issues");
    const done = steps({ policy: "critique" }, [
      { target: "a", answer: "Paris" },
      { target: "c", answer: "no issues" },
      { target: "b", answer: "add the source" },
      { target: "a", key: "a#1", answer: "Paris (source: atlas)" },
    ]).decision;
    expect(done).toMatchObject({ ok: true, answer: "Paris (source: atlas)", rounds: 1 });
  });

  it("critique's rounds are bounded, and it ends early when every critic agrees", () => {
    const two = (replies: FanOutReply[]) =>
      fanOutSteps({ policy: "critique", targets: ["p", "c"], question: "q", rounds: 2 }, replies);
    const r = [
      { target: "p", answer: "v1" },
      { target: "c", answer: "too vague" },
      { target: "p", key: "p#1", answer: "v2" },
    ];
    expect(two(r).asks.at(-1)).toMatchObject({ key: "c#1", target: "c" });
    expect(two(r).asks.at(-1)!.question).toContain("v2");
    expect(two([...r, { target: "c", key: "c#1", answer: "LGTM" }]).decision).toMatchObject({
      ok: true,
      answer: "v2",
      rounds: 1,
    });
    const spent = two([
      ...r,
      { target: "c", key: "c#1", answer: "still vague" },
      { target: "p", key: "p#2", answer: "v3" },
    ]);
    expect(spent.decision).toMatchObject({ ok: true, answer: "v3", rounds: 2 });
  });

  it("review: a rejection's reasons go to the author, who redrafts; accepted drafts decide; retries are bounded", () => {
    const review = (replies: FanOutReply[]) =>
      fanOutSteps({ policy: "review", targets: ["w", "r"], question: "q", retries: 1 }, replies);
    const rejected = review([
      { target: "w", answer: "draft 1" },
      { target: "r", answer: "REJECT: no tests" },
    ]);
    expect(rejected.asks.at(-1)).toMatchObject({ key: "w#1", target: "w" });
    expect(rejected.asks.at(-1)!.question).toContain("r: no tests");
    expect(
      review([
        { target: "w", answer: "draft 1" },
        { target: "r", answer: "REJECT: no tests" },
        { target: "w", key: "w#1", answer: "draft 2" },
        { target: "r", key: "r#1", answer: "ACCEPT" },
      ]).decision,
    ).toMatchObject({ ok: true, answer: "draft 2", rounds: 2 });
    const spent = review([
      { target: "w", answer: "draft 1" },
      { target: "r", answer: "REJECT: no tests" },
      { target: "w", key: "w#1", answer: "draft 2" },
      { target: "r", key: "r#1", answer: "reject - still no tests" },
    ]).decision!;
    expect(spent).toMatchObject({ ok: false, outcome: "rejected", reasons: ["r: still no tests"] });
    expect(spent.answer).toContain("rejected after 2 draft(s)");
  });

  it("a fan-out spec names the field and what is allowed when it is wrong", () => {
    const issues = (v: unknown) =>
      fanOutSpecSchema.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues({ targets: ["a"], question: "q", policy: "critique" })).toEqual([
      "targets: critique needs two agents or more: the first proposes, the others critique",
    ]);
    expect(issues({ targets: ["a", "b"], question: "q", policy: "vote", weights: { z: 2 } })).toEqual([
      "weights.z: 'z' is not one of the targets",
    ]);
    expect(issues({ targets: ["a", "b"], question: "q", policy: "loudest" })?.[0]).toContain(
      "policy: one of all, first, majority, vote, critique, review",
    );
    expect(issues({ targets: ["a", "b"], question: "q", policy: "critique", rounds: 9 })).toEqual([
      "rounds: 1 to 3 rounds",
    ]);
    expect(issues({ targets: ["a", "b"], question: "q", policy: "majority" })).toBeUndefined();
  });
});

describe("bus message rules", () => {
  const request = () =>
    makeRequest({
      id: "m1",
      project: "default",
      from: "main",
      to: "airtable",
      question: "How many leads?",
      replyTo: { runId: "r1", callId: "c1" },
      conversationId: "r1",
      depth: 1,
      now: 1000,
    });

  it("a request carries a two-minute deadline by default", () => {
    expect(request().deadlineAt).toBe(121_000);
  });

  it("a message with a payload that does not match its type is rejected naming the field", () => {
    expect(() => parseBusMessage({ ...request(), type: "response" })).toThrow(/payload\.answer/);
  });

  it("requests are refused off the declared connections, beyond depth 10, and after their deadline", () => {
    const base = { from: "main", to: "github", depth: 1, deadlineAt: 2000, now: 1000 };
    expect(checkRequest({ ...base, connections: ["airtable"] })?.code).toBe("not_connected");
    expect(checkRequest({ ...base, connections: ["github"], depth: 11 })?.code).toBe("depth_exceeded");
    expect(checkRequest({ ...base, connections: ["github"], depth: 10 })).toBeUndefined();
    expect(checkRequest({ ...base, connections: ["github"], now: 2000 })?.code).toBe("expired");
  });

  it("retries back off exponentially up to a minute", () => {
    expect([1, 2, 3, 4, 10].map(retryDelaySeconds)).toEqual([1, 2, 4, 8, 60]);
  });
});
