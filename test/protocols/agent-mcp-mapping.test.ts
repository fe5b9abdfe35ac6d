// The pure half of the per-agent MCP server (core/protocols/agent-mcp.ts).
import { describe, expect, it } from "vitest";
import { manualCallResult, sourceOfUri, sourceText, sourceUri } from "../../core/protocols";

describe("per-agent MCP mapping", () => {
  it("a call waiting for approval is a tool error naming the run and how to approve it; a failed call is a tool error", () => {
    const waiting = manualCallResult("scout", "mail.send", {
      runId: "r1",
      status: "waiting_approval",
      pending: { callId: "c1", tool: "mail.send", arguments: {} },
    });
    expect(waiting.isError).toBe(true);
    expect(waiting.content[0]!.text).toContain("has not run");
    expect(waiting.content[0]!.text).toContain("pantheon runs approve scout r1");
    expect(
      manualCallResult("scout", "x", { runId: "r2", status: "failed", ok: false, error: { message: "boom" }, ms: 1 }),
    ).toMatchObject({ isError: true, content: [{ text: "boom" }] });
    expect(
      manualCallResult("scout", "x", {
        runId: "r3",
        status: "completed",
        ok: true,
        output: "42",
        truncated: false,
        ms: 1,
      }).isError,
    ).toBeUndefined();
  });

  it("reads back only this agent's source URIs, and only slug source names", () => {
    const uri = sourceUri("default", "scout", "handbook");
    expect(sourceOfUri(uri, "default", "scout")).toBe("handbook");
    expect(sourceOfUri(uri, "other", "scout")).toBeNull();
    expect(sourceOfUri(uri, "default", "scou")).toBeNull();
    expect(sourceOfUri(sourceUri("default", "scout", "../registry"), "default", "scout")).toBeNull();
  });

  it("writes a source as markdown and says how much it left out", () => {
    expect(
      sourceText([
        { title: "Hours", text: "Open at nine.", kind: "document" },
        { text: "Likes tea", kind: "fact" },
      ]),
    ).toBe("# Hours\nOpen at nine.\n\n- (fact) Likes tea");
    expect(sourceText([])).toBe("(this source is empty)");
    expect(
      sourceText(
        [
          { text: "a".repeat(50), kind: "fact" },
          { text: "b".repeat(50), kind: "fact" },
        ],
        80,
      ),
    ).toMatch(/… \(1 more items not shown\)$/);
  });
});
