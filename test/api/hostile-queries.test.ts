import { describe, expect, it } from "vitest";
import { api, createAgent, type ErrorBody } from "./client";

/**
 * Query strings as a careless or hostile client writes them: very long, keys repeated, unicode,
 * broken percent-escapes, FTS5 operators. Each answers 2xx or a 4xx naming the parameter, never 500.
 */
const hostile = [
  "a&q=b",
  "x".repeat(40_000),
  encodeURIComponent("😀".repeat(20_000)),
  encodeURIComponent("é 漢字 \u0000 \u200b \u202e ́ \uffff"),
  "%",
  "%E0%A4%A",
  "%ED%A0%80",
  "%FF%FE",
  encodeURIComponent('"zebra" AND NEAR( * ^ - : {a b} OR'),
  encodeURIComponent("(".repeat(20_000)),
];

async function status(path: string): Promise<{ status: number; body: any }> {
  const res = await api(path);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // reported below as a body that is not JSON
  }
  return { status: res.status, body };
}

describe("hostile query strings", () => {
  it("no query-taking route answers 500 or a non-JSON body, whatever the parameter holds", async () => {
    const agent = await createAgent();
    const a = `/api/agents/${agent.name}`;
    await api(`${a}/memories`, { method: "POST", json: { text: "The zebra lives in the garden." } });
    const routes = [
      (v: string) => `${a}/context?q=${v}`,
      (v: string) => `${a}/context?q=zebra&session=${v}`,
      (v: string) => `${a}/context?q=zebra&maxTokens=${v}`,
      (v: string) => `${a}/context?q=zebra&k=${v}`,
      (v: string) => `${a}/memories?q=${v}`,
      (v: string) => `${a}/memories?kind=${v}`,
      (v: string) => `${a}/memories?limit=${v}`,
      (v: string) => `${a}/messages?cursor=${v}`,
      (v: string) => `${a}/messages?session=${v}`,
      (v: string) => `${a}/messages?limit=${v}`,
      (v: string) => `${a}/runs?limit=${v}`,
      (v: string) => `/api/health/echo?x=${v}`,
      (v: string) => `/api/agents?project=${v}`,
    ];
    const failures: string[] = [];
    for (const route of routes) {
      for (const value of hostile) {
        const path = route(value);
        const { status: code, body } = await status(path);
        if (code >= 500 || body === null || (code >= 400 && !body.error))
          failures.push(`${path.slice(0, 80)}: ${code} ${JSON.stringify(body)?.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("GET /context: a repeated q or one over 32,000 characters is a 400 naming q", async () => {
    const agent = await createAgent();
    const a = `/api/agents/${agent.name}`;
    for (const query of [
      "q=a&q=b",
      `q=${"x".repeat(32_001)}`,
      "q=a&session=s1&session=s2",
      "q=a&maxTokens=1&maxTokens=2",
    ]) {
      const res = await api(`${a}/context?${query}`);
      expect(res.status, query.slice(0, 40)).toBe(400);
      const error = ((await res.json()) as ErrorBody).error;
      expect(error.code).toBe("validation_failed");
      expect(error.details?.issues?.map((i) => i.path[0])).toEqual([
        query.includes("session") ? "session" : query.includes("maxTokens") ? "maxTokens" : "q",
      ]);
    }
    expect((await api(`${a}/context?q=${"x".repeat(32_000)}`)).status).toBe(200);
  });

  it("GET /context keeps unicode and broken percent-escapes as written, and FTS5 operators are only words", async () => {
    const agent = await createAgent();
    const a = `/api/agents/${agent.name}`;
    await api(`${a}/memories`, { method: "POST", json: { text: "The zebra lives in the garden." } });
    const unicode = "é 漢字 😀 \u0000 \u202e zebra";
    const preview = async (q: string) =>
      (await (await api(`${a}/context?q=${q}`)).json()) as { query: string; items: { text: string }[] };
    expect((await preview(encodeURIComponent(unicode))).query).toBe(unicode);
    expect((await preview("%E0%A4%A")).query).toBe("%E0%A4%A");
    const fts = await preview(encodeURIComponent('"zebra" AND NEAR( * OR'));
    expect(fts.items.map((i) => i.text)).toContain("The zebra lives in the garden.");
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ");
    expect((await api(`${a}/context?q=${encodeURIComponent(words)}`)).status).toBe(200);
  });

  it("other routes refuse repeated or oversized parameters with a 400 naming them", async () => {
    const agent = await createAgent();
    const a = `/api/agents/${agent.name}`;
    const cases: [string, string][] = [
      [`${a}/memories?q=a&q=b`, "q"],
      [`${a}/memories?q=${"x".repeat(1001)}`, "q"],
      [`${a}/memories?limit=1e400`, "limit"],
      [`${a}/messages?limit=5&limit=6`, "limit"],
      [`${a}/messages?cursor=${"c".repeat(201)}`, "cursor"],
      [`${a}/runs?limit=%F0%9F%98%80`, "limit"],
      [`/api/health/echo?x=a&x=b`, "x"],
    ];
    for (const [path, field] of cases) {
      const res = await api(path);
      expect(res.status, path.slice(0, 60)).toBe(400);
      expect(((await res.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual([field]);
    }
  });
});
