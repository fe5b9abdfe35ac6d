import { describe, expect, it } from "vitest";
import {
  allowlistGate,
  approvalGate,
  budgetGate,
  builtinGates,
  makeCustomGate,
  rateKey,
  rateLimitGate,
  runGates,
  schemaGate,
  takeToken,
  type Gate,
  type GateContext,
  type GateProposal,
} from "../../core/gates";
import { defaultRunLimits } from "../../core/run/limits";
import type { ToolSpec } from "../../core/tools";

const fetchSpec: ToolSpec = {
  name: "http.fetch",
  description: "",
  parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  runtime: "builtin",
};
const sendSpec: ToolSpec = {
  name: "mail.send",
  description: "",
  parameters: { type: "object", properties: { to: { type: "string" }, approved: { type: "boolean" } } },
  runtime: "http",
  requiresApproval: true,
};

function ctx(overrides: Partial<GateContext> = {}): GateContext {
  return {
    agent: "scout",
    tools: new Map([fetchSpec, sendSpec].map((s) => [s.name, s])),
    now: 1_000_000,
    run: { step: 1, tokens: 10, activeMs: 5, callsByTool: {} },
    limits: defaultRunLimits,
    approvals: new Map(),
    ...overrides,
  };
}

function proposal(name: string, args: Record<string, unknown>, id = "c1"): GateProposal {
  const spec = [fetchSpec, sendSpec].find((s) => s.name === name);
  return { call: { id, name, arguments: args }, ...(spec ? { spec } : {}) };
}

describe("runGates", () => {
  it("runs gates in priority order and stops at the first rejection, keeping every decision made", () => {
    const order: string[] = [];
    const gate = (name: string, priority: number, allow: boolean): Gate => ({
      name,
      priority,
      check: () => (order.push(name), allow ? { allow: true } : { allow: false, reason: `${name} says no` }),
    });
    const outcome = runGates(
      [gate("c", 30, true), gate("a", 10, true), gate("b", 20, false)],
      proposal("http.fetch", { url: "x" }),
      ctx(),
    );
    expect(order).toEqual(["a", "b"]);
    expect(outcome).toEqual({
      allow: false,
      rejection: { gate: "b", decision: { allow: false, reason: "b says no" } },
      decisions: [
        { gate: "a", decision: { allow: true } },
        { gate: "b", decision: { allow: false, reason: "b says no" } },
      ],
    });
  });

  it("fails closed when a gate throws", () => {
    const broken: Gate = {
      name: "broken",
      priority: 1,
      check: () => {
        throw new Error("boom");
      },
    };
    const outcome = runGates([broken], proposal("http.fetch", { url: "x" }), ctx());
    expect(outcome.allow).toBe(false);
  });

  it("lets a valid call of a declared tool through every built-in gate", () => {
    expect(runGates(builtinGates(), proposal("http.fetch", { url: "https://a.example.com" }), ctx()).allow).toBe(true);
  });
});

describe("built-in gates", () => {
  it("allowlist rejects a tool the agent does not declare", () => {
    expect(allowlistGate.check(proposal("shell.exec", {}), ctx())).toEqual({
      allow: false,
      reason: "tool 'shell.exec' is not available to this agent; available: http.fetch, mail.send",
    });
  });

  it("schema rejects invalid arguments, naming the field", () => {
    expect(schemaGate.check(proposal("http.fetch", { url: 42 }), ctx())).toEqual({
      allow: false,
      reason: 'invalid arguments: url: Instance type "number" is invalid. Expected "string".',
    });
  });

  it("budget ends the run when steps, tokens or wall time are used up", () => {
    const limits = { ...defaultRunLimits, maxSteps: 3, maxTokensPerRun: 100, maxRunMs: 1000 };
    expect(
      budgetGate.check(
        proposal("http.fetch", {}),
        ctx({ limits, run: { step: 3, tokens: 0, activeMs: 0, callsByTool: {} } }),
      ),
    ).toEqual({ allow: false, final: true, reason: "step limit reached: 3 of 3 model steps used" });
    expect(
      budgetGate.check(
        proposal("http.fetch", {}),
        ctx({ limits, run: { step: 1, tokens: 150, activeMs: 0, callsByTool: {} } }),
      ),
    ).toEqual({ allow: false, final: true, reason: "token limit reached: 150 of 100 tokens used" });
    expect(
      budgetGate.check(
        proposal("http.fetch", {}),
        ctx({ limits, run: { step: 1, tokens: 0, activeMs: 1000, callsByTool: {} } }),
      ),
    ).toMatchObject({ allow: false, final: true });
    expect(budgetGate.check(proposal("http.fetch", {}), ctx({ limits }))).toEqual({ allow: true });
  });

  it("rate limit rejects once the agent's bucket for the tool is empty", () => {
    const rateLimits = { "http.fetch": { capacity: 2, refillPerSec: 1 } };
    const empty = new Map([[rateKey("scout", "http.fetch"), { tokens: 0, updatedAt: 1_000_000 }]]);
    const decision = rateLimitGate.check(proposal("http.fetch", { url: "x" }), ctx({ rateLimits, buckets: empty }));
    expect(decision).toEqual({
      allow: false,
      reason: "rate limit: 'http.fetch' allows 2 calls, refilling 1/s; next call possible in 1 s",
    });
    expect(rateLimitGate.check(proposal("http.fetch", { url: "x" }), ctx({ rateLimits }))).toEqual({ allow: true });
  });

  it("approval holds a tool that requires it until a person's approval is in the context", () => {
    expect(approvalGate.check(proposal("mail.send", { to: "a@b.c" }), ctx())).toEqual({
      allow: false,
      pending: "approval",
      reason: "'mail.send' needs a person's approval",
    });
    expect(
      approvalGate.check(
        proposal("mail.send", { to: "a@b.c" }),
        ctx({ approvals: new Map([["c1", { by: "ana", at: 1 }]]) }),
      ),
    ).toEqual({ allow: true });
  });

  it("approval ignores a model's claim of approval in the arguments", () => {
    const claimed = proposal("mail.send", { to: "a@b.c", approved: true, approval: { by: "admin" } });
    expect(runGates(builtinGates(), claimed, ctx())).toMatchObject({
      allow: false,
      rejection: { gate: "approval", decision: { pending: "approval" } },
    });
  });

  it("an approval for another call does not approve this one", () => {
    expect(
      approvalGate.check(proposal("mail.send", {}, "c2"), ctx({ approvals: new Map([["c1", { by: "ana", at: 1 }]]) })),
    ).toMatchObject({ allow: false, pending: "approval" });
  });
});

describe("token bucket", () => {
  const limit = { capacity: 2, refillPerSec: 0.5 };

  it("starts full, empties, and refills with time", () => {
    const first = takeToken(undefined, 0, limit);
    const second = takeToken(first.bucket, 0, limit);
    const third = takeToken(second.bucket, 0, limit);
    expect([first.allowed, second.allowed, third.allowed]).toEqual([true, true, false]);
    expect(takeToken(third.bucket, 1_000, limit).allowed).toBe(false);
    expect(takeToken(third.bucket, 2_000, limit)).toEqual({ allowed: true, bucket: { tokens: 0, updatedAt: 2_000 } });
  });

  it("never fills beyond capacity", () => {
    expect(takeToken({ tokens: 0, updatedAt: 0 }, 1_000_000, limit).bucket.tokens).toBe(1);
  });
});

describe("custom gates", () => {
  it("deny-pattern rejects a matching argument field, case-insensitively", () => {
    const gate = makeCustomGate({
      name: "no-admin",
      kind: "deny-pattern",
      tool: "http.*",
      field: "url",
      pattern: "/admin\\b",
    });
    expect(gate.check(proposal("http.fetch", { url: "https://a.example.com/ADMIN" }), ctx())).toEqual({
      allow: false,
      reason: "gate 'no-admin': url matches a denied pattern",
    });
    expect(gate.check(proposal("http.fetch", { url: "https://a.example.com/home" }), ctx())).toEqual({ allow: true });
    expect(gate.check(proposal("mail.send", { url: "/admin" }), ctx())).toEqual({ allow: true });
  });

  it("deny-pattern without a field tests the whole arguments", () => {
    const gate = makeCustomGate({ name: "no-secrets", kind: "deny-pattern", pattern: "password" });
    expect(gate.check(proposal("mail.send", { body: { text: "my Password is" } }), ctx()).allow).toBe(false);
  });

  it("deny-pattern refuses an invalid regular expression when compiled", () => {
    expect(() => makeCustomGate({ name: "bad", kind: "deny-pattern", pattern: "(" })).toThrow(
      "gate 'bad': not a valid pattern (RE2 syntax): missing closing ): `(`",
    );
  });

  it("deny-pattern runs in linear time: a catastrophic pattern against 10,000 hostile characters completes with the right decision", () => {
    // `(a+)+$` against "aaa…!" backtracks exponentially in JavaScript's engine (27 a's stall it
    // for seconds); RE2 answers at once. Without the linear-time engine this test never finishes.
    const gate = makeCustomGate({ name: "no-runs", kind: "deny-pattern", field: "text", pattern: "(a+)+$" });
    const hostile = `${"a".repeat(9_999)}!`;
    expect(gate.check(proposal("notes.add", { text: hostile }), ctx())).toEqual({ allow: true });
    expect(gate.check(proposal("notes.add", { text: "a".repeat(10_000) }), ctx())).toEqual({
      allow: false,
      reason: "gate 'no-runs': text matches a denied pattern",
    });
    const nested = makeCustomGate({ name: "nested", kind: "deny-pattern", pattern: "^(\\w+\\s?)*$" });
    expect(nested.check(proposal("notes.add", { text: `${"word ".repeat(2_000)}!` }), ctx()).allow).toBe(true);
  });

  it("deny-pattern refuses what RE2 cannot run, saying why: backreferences and lookaround", () => {
    expect(() => makeCustomGate({ name: "echo", kind: "deny-pattern", pattern: "(\\w+) \\1" })).toThrow(
      "gate 'echo': backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time",
    );
    expect(() => makeCustomGate({ name: "named", kind: "deny-pattern", pattern: "(?<w>\\w+) \\k<w>" })).toThrow(
      /gate 'named': backreferences/,
    );
    expect(() => makeCustomGate({ name: "ahead", kind: "deny-pattern", pattern: "secret(?!ary)" })).toThrow(
      "gate 'ahead': lookahead ((?=…), (?!…)) is not supported by the linear-time engine",
    );
    expect(() => makeCustomGate({ name: "behind", kind: "deny-pattern", pattern: "(?<=api)key" })).toThrow(
      "gate 'behind': lookbehind ((?<=…), (?<!…)) is not supported by the linear-time engine",
    );
    // An escaped backslash before a digit is a literal, not a backreference.
    expect(
      makeCustomGate({ name: "path", kind: "deny-pattern", field: "p", pattern: "c:\\\\1" }).check(
        proposal("x", { p: "C:\\1" }),
        ctx(),
      ).allow,
    ).toBe(false);
  });

  it("allow-hosts rejects a URL outside its hosts", () => {
    const gate = makeCustomGate({
      name: "gh-only",
      kind: "allow-hosts",
      tool: "http.fetch",
      hosts: ["*.github.com", "github.com"],
    });
    expect(gate.check(proposal("http.fetch", { url: "https://api.github.com/x" }), ctx())).toEqual({ allow: true });
    expect(gate.check(proposal("http.fetch", { url: "https://github.com.evil.io/" }), ctx())).toEqual({
      allow: false,
      reason: "gate 'gh-only': host github.com.evil.io is not one of *.github.com, github.com",
    });
    expect(gate.check(proposal("http.fetch", { url: "not a url" }), ctx()).allow).toBe(false);
  });

  it("max-calls rejects once a tool was called its maximum number of times in the run", () => {
    const gate = makeCustomGate({ name: "two-fetches", kind: "max-calls", tool: "http.fetch", max: 2 });
    expect(
      gate.check(
        proposal("http.fetch", {}),
        ctx({ run: { step: 1, tokens: 0, activeMs: 0, callsByTool: { "http.fetch": 1 } } }),
      ),
    ).toEqual({ allow: true });
    expect(
      gate.check(
        proposal("http.fetch", {}),
        ctx({ run: { step: 1, tokens: 0, activeMs: 0, callsByTool: { "http.fetch": 2 } } }),
      ),
    ).toEqual({ allow: false, reason: "gate 'two-fetches': 'http.fetch' may be called at most 2 times per run" });
  });
});
