import { describe, expect, it } from "vitest";
import { api, createAgent } from "./client";

/**
 * Every route, fed the mistakes clients make: no body, a body that is not JSON, the wrong JSON
 * shape, wrong types, absurd numbers, unknown ids. Each must answer 4xx in the one error shape —
 * never a 500, never an HTML page.
 */
const bodies: { label: string; body?: string; type?: string }[] = [
  { label: "no body" },
  { label: "not JSON", body: "{nope", type: "application/json" },
  { label: "a JSON array", body: "[1,2,3]", type: "application/json" },
  { label: "a JSON string", body: '"hello"', type: "application/json" },
  { label: "null", body: "null", type: "application/json" },
  {
    label: "wrong types",
    body: JSON.stringify({
      name: 7,
      content: { a: 1 },
      title: [],
      decision: 3,
      connections: "x",
      arguments: "x",
      text: 9,
      url: 5,
      kind: "??",
      limits: { maxSteps: 1e309 },
    }),
    type: "application/json",
  },
  {
    label: "huge numbers",
    body: '{"content":"hi","limits":{"maxSteps":1e400,"maxTokensPerRun":-5}}',
    type: "application/json",
  },
  { label: "plain text", body: "hello", type: "text/plain" },
  { label: "form data", body: "a=1&b=2", type: "application/x-www-form-urlencoded" },
];

function routes(agent: string) {
  const a = `/api/agents/${agent}`;
  return [
    ["POST", "/api/agents"],
    ["PATCH", a],
    ["POST", `${a}/messages`],
    ["GET", `${a}/messages?limit=-1&cursor=%%%`],
    ["POST", `${a}/sessions`],
    ["PATCH", `${a}/sessions/does-not-exist`],
    ["POST", `${a}/sessions/does-not-exist/fork`],
    ["DELETE", `${a}/sessions/does-not-exist`],
    ["GET", `${a}/runs?limit=abc`],
    ["GET", `${a}/runs/does-not-exist`],
    ["POST", `${a}/runs/does-not-exist/approval`],
    ["POST", `${a}/runs/does-not-exist/cancel`],
    ["POST", `${a}/tools/clock.now/invoke`],
    ["POST", `${a}/tools/NOT%20A%20TOOL/invoke`],
    ["PUT", `${a}/script`],
    ["PUT", `${a}/connections`],
    ["POST", `${a}/schedules/nope/pause`],
    ["POST", `${a}/memories`],
    ["GET", `${a}/memories?limit=99999&kind=banana`],
    ["GET", `${a}/memories/does-not-exist`],
    ["DELETE", `${a}/memories/does-not-exist`],
    ["POST", `${a}/memories/import`],
    ["GET", `${a}/context`],
    ["POST", `${a}/sources/Bad Source/documents`],
    ["POST", `${a}/mcp`],
    ["DELETE", `${a}/mcp/does-not-exist`],
    ["POST", "/api/tokens"],
    ["DELETE", "/api/tokens/does-not-exist"],
    ["GET", "/api/conversations/does-not-exist"],
    ["POST", "/v1/chat/completions"],
  ] as const;
}

describe("client mistakes are 4xx, never 500", () => {
  it("every route answers each malformed request with a 4xx JSON error", async () => {
    const agent = await createAgent();
    const failures: string[] = [];
    for (const [method, path] of routes(agent.name)) {
      for (const { label, body, type } of bodies) {
        if (method === "GET" || method === "DELETE") {
          if (label !== "no body") continue;
        }
        const res = await api(path, {
          method,
          ...(body !== undefined ? { body } : {}),
          headers: type ? { "content-type": type } : {},
        });
        const text = await res.text();
        const json = (() => {
          try {
            return JSON.parse(text);
          } catch {
            return null;
          }
        })();
        if (res.status >= 500 || res.status < 400 || !json?.error)
          failures.push(`${method} ${path} with ${label}: ${res.status} ${text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
