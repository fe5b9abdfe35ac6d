import { toolNamePattern } from "../../../core/tools";

/** Server names become the first segment of tool names, so they follow the tool-name rules. */
export const mcpServerNamePattern = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * `<server>.<tool>` in lowercase slug form: camelCase splits at its humps, anything outside
 * `[a-z0-9_-]` becomes `_`. Undefined when the result is not a valid tool name (too long, say).
 * @example
 * mcpToolName("github", "listPullRequests"); // "github.list_pull_requests"
 */
export function mcpToolName(server: string, tool: string): string | undefined {
  const slug = tool
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const name = `${server}.${slug}`;
  return slug && name.length <= 64 && toolNamePattern.test(name) ? name : undefined;
}
