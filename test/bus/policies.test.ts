import { describe, expect, it } from "vitest";
import { checkRequest, decide, makeRequest, parseBusMessage, retryDelaySeconds } from "../../core/bus";

describe("fan-out policies", () => {
  const targets = ["a", "b", "c"];

  it("all waits for every target and lists the answers in target order", () => {
    expect(decide("all", targets, [{ target: "c", answer: "3" }, { target: "a", answer: "1" }]).done).toBe(false);
    const done = decide("all", targets, [{ target: "c", answer: "3" }, { target: "a", answer: "1" }, { target: "b", error: "down" }]);
    expect(done).toMatchObject({ done: true, ok: true, answer: "a: 1\nb failed: down\nc: 3" });
  });

  it("first takes the first usable answer and skips errors", () => {
    expect(decide("first", targets, [{ target: "b", error: "down" }]).done).toBe(false);
    expect(decide("first", targets, [{ target: "b", error: "down" }, { target: "c", answer: "42" }])).toMatchObject({ done: true, ok: true, answer: "42" });
    expect(decide("first", targets, targets.map((t) => ({ target: t, error: "down" })))).toMatchObject({ done: true, ok: false });
  });

  it("majority decides as soon as two of three agree, ignoring case and final punctuation", () => {
    const result = decide("majority", targets, [{ target: "a", answer: "Yes" }, { target: "c", answer: "yes." }]);
    expect(result).toMatchObject({ done: true, ok: true, answer: "Yes", votes: { yes: 2 } });
  });

  it("majority reports a split vote instead of picking a winner", () => {
    const result = decide("majority", targets, [{ target: "a", answer: "yes" }, { target: "b", answer: "no" }, { target: "c", answer: "maybe" }]);
    expect(result).toMatchObject({ done: true, ok: false });
    expect(result.done && result.answer).toContain("no majority among 3 agents (2 needed)");
  });

  it("critique puts the proposer's answer first, followed by every critic's remarks", () => {
    expect(decide("critique", targets, [{ target: "a", answer: "Paris" }]).done).toBe(false);
    const result = decide("critique", targets, [{ target: "a", answer: "Paris" }, { target: "c", answer: "fine" }, { target: "b", answer: "add the source" }]);
    expect(result).toMatchObject({ done: true, ok: true, answer: "Proposal from a: Paris\nCritique b: add the source\nCritique c: fine" });
  });
});

describe("bus message rules", () => {
  const request = () => makeRequest({ id: "m1", project: "default", from: "main", to: "airtable", question: "How many leads?", replyTo: { runId: "r1", callId: "c1" }, conversationId: "r1", depth: 1, now: 1000 });

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
