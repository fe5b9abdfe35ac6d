import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../api/client";
import { casesFor, type FuzzCase } from "./fuzz-cases";
import { verdictOf, type Verdict } from "./fuzz-verdict";
import {
  makeRouteFixture,
  routeInventory,
  routeKey,
  type RouteEntry,
  type RouteFixture,
  type RouteSample,
} from "./routes";

// Every route of the inventory, fuzzed with the admin token around its valid samples: an answer is
// 2xx or 4xx, never 5xx (bar the 502s the API declares for upstream failures), and a 4xx has its
// family's error shape (fuzz-verdict.ts). Replay a run with
// `FUZZ_SEED=<seed> npx vitest run test/security/fuzz.test.ts` (add `-t "<route>"` for one route:
// each route's cases come from its own seed); `FUZZ_RUNS=<n>` sets the cases per route.
const defaultSeed = 20_260_601;
const seed = Number.parseInt(inject("fuzzSeed"), 10) || defaultSeed;
const runsPerRoute = Number.parseInt(inject("fuzzRuns"), 10) || 100;
/** The whole file's budget for cases, so a loaded machine cuts cases short rather than the suite's time. */
const budgetMs = inject("fuzzRuns") ? 30 * 60_000 : 75_000;
const floorMs = 400;

/** The webhook secret of the Telegram gateway beforeAll gives `helper`, so webhook cases get past the 401 to the body. */
const telegramSecret = "fuzz-telegram-secret-token-0123456789";
const memoryLine = (i: number) => JSON.stringify({ kind: "fact", text: `Fact ${i}: the locker of room ${i} is blue` });

const mcpCall = (id: number, method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

/** More valid requests, for routes whose interesting branches hide behind one field's value. */
const variants: Record<string, (f: RouteFixture, sample: RouteSample) => RouteSample[]> = {
  "POST /api/agents/:name/messages": (f, sample) => [
    ...['/tool clock.now {"zone":"UTC"}', "/tools", `/ask ${f.helper} and you?`, "/tool memory.search {}"].map(
      (content) => ({ ...sample, body: { json: { content } } }),
    ),
    { ...sample, headers: { accept: "text/event-stream" } },
  ],
  "POST /v1/chat/completions": (f) => [
    {
      params: {},
      body: {
        json: {
          model: f.agent,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        },
      },
    },
  ],
  "POST /mcp": (f, sample) => [
    {
      ...sample,
      body: {
        json: mcpCall(1, "initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "1" },
        }),
      },
    },
    { ...sample, body: { json: mcpCall(2, "tools/list") } },
    {
      ...sample,
      body: { json: mcpCall(3, "tools/call", { name: "get_run", arguments: { agent: f.agent, run: f.run } }) },
    },
    {
      ...sample,
      body: {
        json: [
          mcpCall(4, "tools/call", { name: "list_agents", arguments: {} }),
          { jsonrpc: "2.0", method: "notifications/initialized" },
        ],
      },
    },
  ],
  // Reserved names and unknown model providers, where a `constructor` agent was a 500 and `foo:bar` was accepted.
  "POST /api/agents": (_f, sample) => [
    { ...sample, body: { json: { name: "constructor", description: "x" } } },
    {
      ...sample,
      body: {
        json: {
          name: `m-${Date.now().toString(36)}`,
          model: { provider: "foo:bar", name: "x" },
          runtime: { tools: ["constructor"], rateLimits: { constructor: { capacity: 1, refillPerSec: 1 } } },
        },
      },
    },
  ],
  "POST /api/projects/:slug/import": (f, sample) => [
    {
      ...sample,
      body: {
        json: {
          agents: { constructor: { description: "x" }, prototype: { description: "y", connections: ["constructor"] } },
        },
      },
    },
    {
      ...sample,
      body: {
        json: {
          agents: {
            [f.helper]: {
              description: "x",
              tools: ["constructor"],
              pantheon: { model: { provider: "foo", name: "bar" } },
            },
          },
        },
      },
    },
  ],
  // Imports past the 100 variables one SQL statement binds (test/memory/import-batches.test.ts takes 250).
  "POST /api/agents/:name/memories/import": (_f, sample) =>
    [21, 40].map((n) => ({
      ...sample,
      body: {
        text: Array.from({ length: n }, (_, i) => memoryLine(i)).join("\n"),
        contentType: "application/x-ndjson",
      },
    })),
  // With the right secret, so the body is read (a 10,000-deep update was a 500 there).
  "POST /gateways/telegram/:project/:agent": (f) => [
    {
      params: { project: "default", agent: f.helper },
      headers: { "x-telegram-bot-api-secret-token": telegramSecret },
      body: {
        json: {
          update_id: 1,
          message: {
            message_id: 1,
            date: 1,
            chat: { id: 9_000_001, type: "private" },
            from: { id: 9_000_001, is_bot: false, first_name: "F" },
            text: "hello",
          },
        },
      },
    },
  ],
  "PUT /api/agents/:name/script": (f) => [
    {
      params: { name: f.scripted },
      body: { json: { name: f.scripted, description: "As JSON", tools: ["clock.now"], talents: [] } },
    },
  ],
};

/** One seed per route, from the run's seed and the route: a route's cases do not depend on the others. */
function seedOf(route: RouteEntry): number {
  let hash = seed >>> 0;
  for (const char of routeKey(route)) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619) >>> 0;
  return hash | 0;
}

const stats = { cases: 0, routes: 0, crashes: 0, malformed: 0, upstream: 0, interrupted: 0 };
const statuses = new Map<number, number>();
const failures: string[] = [];

/** Sends one case and judges the answer. */
async function send(route: RouteEntry, c: FuzzCase): Promise<Verdict> {
  stats.cases += 1;
  let res: Response;
  try {
    res = await api(c.path, { method: c.method, headers: c.headers, ...(c.body === null ? {} : { body: c.body }) });
  } catch (error) {
    // The client refused to send it (a header it cannot encode): nothing reached the worker.
    if (error instanceof TypeError) return { ok: true };
    throw error;
  }
  if (res.webSocket) {
    res.webSocket.accept();
    res.webSocket.close(1000, "fuzz");
  }
  const text = await res.text();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const verdict = verdictOf(route.family, c, res, text);
  if (!verdict.ok) stats[verdict.kind === "crash" ? "crashes" : "malformed"] += 1;
  else if (verdict.upstream) stats.upstream += 1;
  return verdict;
}

describe(`fuzz of every route (seed ${seed})`, () => {
  const samples = new Map<RouteEntry, RouteSample[]>();
  let started = 0;

  beforeAll(async () => {
    const fixture = await makeRouteFixture();
    const telegram = await api(`/api/agents/${fixture.helper}/gateways/telegram`, {
      method: "PUT",
      json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1], secretToken: telegramSecret },
    });
    if (telegram.status !== 200)
      throw new Error(`the fuzz's Telegram gateway: ${telegram.status} ${await telegram.text()}`);
    // The worker loads the A2A SDK and AG-UI's packages on their first request: paid here, not by a
    // route's first case, which on a loaded machine could take its whole share of the time budget.
    await (await api(`/a2a/agents/${fixture.agent}/.well-known/agent-card.json`)).text();
    await (
      await api(`/agui/agents/${fixture.agent}`, {
        method: "POST",
        json: { threadId: "warm", runId: "warm", messages: [{ id: "w", role: "user", content: "hi" }] },
      })
    ).text();
    for (const route of routeInventory) {
      const sample = await route.sample(fixture);
      samples.set(route, [sample, ...(variants[routeKey(route)]?.(fixture, sample) ?? [])]);
    }
    started = Date.now();
  }, 60_000);

  afterAll(() => {
    const byStatus = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(" ");
    console.log(
      `fuzz: ${stats.cases} cases over ${stats.routes} routes, seed ${seed}, ${stats.crashes} crashes` +
        (stats.malformed ? `, ${stats.malformed} malformed errors` : ""),
    );
    const notes = [
      stats.upstream ? `${stats.upstream} declared upstream failures (502)` : "",
      stats.interrupted ? `${stats.interrupted} routes cut short by the time budget` : "",
    ].filter(Boolean);
    console.log(`fuzz statuses: ${byStatus}${notes.length ? ` (${notes.join("; ")})` : ""}`);
    if (failures.length) console.log(`fuzz failures:\n${failures.join("\n")}`);
  });

  it("has variants only for routes of the inventory", () => {
    const keys = new Set(routeInventory.map(routeKey));
    expect(Object.keys(variants).filter((key) => !keys.has(key))).toEqual([]);
  });

  routeInventory.forEach((route, index) => {
    it(`${routeKey(route)} answers 2xx or a well-formed 4xx`, async () => {
      stats.routes += 1;
      const property = fc.asyncProperty(casesFor(route, samples.get(route)!), async (c) => {
        const verdict = await send(route, c);
        if (!verdict.ok) throw new Error(verdict.problem);
      });
      // A route may use what is left of the budget, less a floor kept for each route after it.
      const share = Math.max(
        floorMs,
        budgetMs - (Date.now() - started) - floorMs * (routeInventory.length - index - 1),
      );
      const result = await fc.check(property, {
        seed: seedOf(route),
        numRuns: runsPerRoute,
        interruptAfterTimeLimit: share,
      });
      if (result.interrupted && !result.failed) stats.interrupted += 1;
      if (result.failed) {
        failures.push(
          `${routeKey(route)} (seed ${seedOf(route)}, path ${result.counterexamplePath}): ${String(result.errorInstance).slice(0, 400)}\n  ${fc.stringify(result.counterexample?.[0])}`,
        );
        throw new Error(fc.defaultReportMessage(result) ?? "failed");
      }
    }, 60_000);
  });
});
