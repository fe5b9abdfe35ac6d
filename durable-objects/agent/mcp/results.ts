import type { McpCallResult } from "./client";

export class McpToolError extends Error {
  override readonly name = "McpToolError";
}

/**
 * The text the model reads from a `tools/call` result. Text blocks verbatim; other blocks by a
 * short bracketed description (the model cannot see images); structured content as JSON when
 * there is no content. A result with `isError` throws, so the run records a failed tool call.
 * @example
 * mcpResultText({ content: [{ type: "text", text: "5" }] }); // "5"
 */
export function mcpResultText(result: McpCallResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    const b = (block ?? {}) as Record<string, unknown>;
    if (b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else if (b.type === "image" || b.type === "audio")
      parts.push(`[${String(b.type)} ${String(b.mimeType ?? "")}]`.replace(" ]", "]"));
    else if (b.type === "resource") {
      const resource = (b.resource ?? {}) as Record<string, unknown>;
      parts.push(typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri ?? "")}]`);
    } else if (b.type === "resource_link")
      parts.push(`[resource ${String(b.uri ?? "")}${b.name ? ` (${String(b.name)})` : ""}]`);
    else parts.push(JSON.stringify(block));
  }
  let text = parts.join("\n");
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text && result.toolResult !== undefined)
    text = typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult);
  if (result.isError) throw new McpToolError(text || "the MCP server reported an error without details");
  return text;
}
