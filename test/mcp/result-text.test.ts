import { describe, expect, it } from "vitest";
import { McpToolError, mcpResultText, mcpToolName } from "../../durable-objects/agent/mcp";

describe("MCP tool names", () => {
  it("are <server>.<tool> in lowercase slug form", () => {
    expect(mcpToolName("calc", "add")).toBe("calc.add");
    expect(mcpToolName("github", "listPullRequests")).toBe("github.list_pull_requests");
    expect(mcpToolName("files", "read file/v2")).toBe("files.read_file_v2");
  });

  it("leave out a tool whose name cannot become a tool name", () => {
    expect(mcpToolName("calc", "???")).toBeUndefined();
    expect(mcpToolName("calc", "x".repeat(80))).toBeUndefined();
  });
});

describe("the text the model reads from an MCP result", () => {
  it("joins text blocks and describes what it cannot show", () => {
    const text = mcpResultText({
      content: [
        { type: "text", text: "first" },
        { type: "image", data: "iVBOR...", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside a.txt" } },
        { type: "resource_link", uri: "file:///b.txt", name: "b" },
      ],
    });
    expect(text).toBe("first\n[image image/png]\ninside a.txt\n[resource file:///b.txt (b)]");
  });

  it("falls back to structured content when there is no content", () => {
    expect(mcpResultText({ content: [], structuredContent: { sum: 5 } })).toBe('{"sum":5}');
  });

  it("turns a result the server marks as an error into a failed call with the server's words", () => {
    expect(() => mcpResultText({ content: [{ type: "text", text: "division by zero" }], isError: true })).toThrow(
      McpToolError,
    );
    expect(() => mcpResultText({ content: [{ type: "text", text: "division by zero" }], isError: true })).toThrow(
      "division by zero",
    );
  });
});
