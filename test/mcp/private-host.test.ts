import { describe, expect, it } from "vitest";
import { tenant } from "../secrets/helpers";

// The deployment names one private host (vitest.config.ts: PANTHEON_OUTBOUND_PRIVATE_HOSTS=mcp.corp.internal).
describe("an MCP server on a private network", () => {
  it("is reached on the host the deployment admin named, and refused on any other private name (the guard's words)", async () => {
    const t = await tenant("mcp-private");
    const made = await t.call("/api/agents", {
      method: "POST",
      json: { name: "helper", runtime: { allowHosts: ["mcp.corp.internal", "other.corp.internal"] } },
    });
    expect(made.status).toBe(201);
    const connect = async (url: string) => {
      const res = await t.call("/api/agents/helper/mcp", { method: "POST", json: { name: "corp", url } });
      return { status: res.status, text: await res.text() };
    };
    // Refused: a private name the deployment did not open, though the agent's allowlist names it.
    const shut = await connect("http://other.corp.internal/mcp");
    expect(shut.status).toBe(400);
    expect(shut.text).toContain("other.corp.internal is not a public host");
    // Control: the named one passes the guard .
    const opened = await connect("http://mcp.corp.internal/mcp");
    expect(opened.text).not.toContain("not a public host");
    // It got as far as connecting: nothing answers on that name here, a 502 from the remote's side.
    expect(opened.status).toBe(502);
    expect(opened.text).toContain("could not connect to the MCP server at http://mcp.corp.internal/mcp");
  });
});
