import { describe, expect, it } from "vitest";
import { capContent, maxMessageBytes } from "../../durable-objects/agent/chat/messages";

describe("message rows are capped at 2 MB", () => {
  it("content under the cap is stored as it is", () => {
    expect(capContent("hello")).toBe("hello");
  });

  it("longer content is cut to the cap, marked, and never split mid-character", () => {
    const big = "é".repeat(1_500_000); // 3 MB of two-byte characters
    const capped = capContent(big);
    expect(new TextEncoder().encode(capped).length).toBeLessThanOrEqual(maxMessageBytes);
    expect(capped).toMatch(/…\[truncated: message was 3000000 bytes\]$/);
    expect(capped).not.toContain("\uFFFD");
  });
});
