import { describe, expect, it } from "vitest";
import { agentOutputGates, checkOutput, compileCustomGates } from "../../core/gates";

const secrets = [{ name: "GITHUB_TOKEN", value: "ghp_0123456789abcdefXYZ" }];

describe("output gates (pure)", () => {
  it("size, secret leak, then the operator's gates, each on the kinds it names", () => {
    const gates = agentOutputGates({
      secrets,
      specs: [
        { name: "no-urls", kind: "deny-pattern", on: ["message"], pattern: "https?://" },
        { name: "tiny-memories", kind: "max-size", on: ["memory"], max: 20 },
      ],
    });
    expect(checkOutput(gates, { kind: "reply", text: "see https://example.com" }).allow).toBe(true);
    const refused = checkOutput(gates, { kind: "message", text: "see https://example.com" });
    expect(refused).toMatchObject({
      allow: false,
      rejection: { gate: "no-urls", decision: { reason: "gate 'no-urls': the message matches a denied pattern" } },
    });
    expect(checkOutput(gates, { kind: "memory", text: "a memory longer than twenty" })).toMatchObject({
      allow: false,
      rejection: { gate: "tiny-memories" },
    });
    expect(checkOutput(gates, { kind: "reply", text: "x".repeat(32_001) })).toMatchObject({
      allow: false,
      rejection: { gate: "output-size" },
    });
  });

  it("a secret in any form is refused with its name and form, never its value", () => {
    const gates = agentOutputGates({ secrets, specs: [] });
    for (const text of [
      `token ${secrets[0]!.value}`,
      `b64 ${btoa(secrets[0]!.value)}`,
      `half ${secrets[0]!.value.slice(0, 12)}`,
    ]) {
      const outcome = checkOutput(gates, { kind: "answer", text });
      expect(outcome.allow).toBe(false);
      const reason = JSON.stringify(outcome);
      expect(reason).toContain("the answer to the asking agent carries the secret GITHUB_TOKEN");
      expect(reason).not.toContain(secrets[0]!.value.slice(0, 8));
    }
  });

  it("a deny-pattern gate without `on` checks tool calls only, as before; `on` with `tool` checks both", () => {
    const toolOnly = { name: "t", kind: "deny-pattern" as const, pattern: "password" };
    const both = {
      name: "b",
      kind: "deny-pattern" as const,
      on: ["tool" as const, "reply" as const],
      pattern: "password",
    };
    const replyOnly = { name: "r", kind: "deny-pattern" as const, on: ["reply" as const], pattern: "password" };
    expect(compileCustomGates([toolOnly, both, replyOnly]).map((g) => g.name)).toEqual(["t", "b"]);
    const gates = agentOutputGates({ secrets: [], specs: [toolOnly, both, replyOnly] });
    expect(gates.map((g) => g.name)).toEqual(["output-size", "secret-leak", "b", "r"]);
  });
});
