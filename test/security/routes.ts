import { env } from "cloudflare:test";
import { api, createAgent, uniqueName } from "../api/client";

/**
 * The route inventory: every route of the worker (`makeApp().routes`), with the scope a token
 * needs for it and a valid sample request. routes.test.ts keeps it complete (a route the app has
 * and this list lacks fails, named) and checks that every sample answers its `expect` status with
 * the admin token; fuzz.test.ts mutates the samples; the access matrix replays them per scope.
 *
 * @example
 * const fixture = await makeRouteFixture();
 * for (const route of routeInventory) {
 *   const { path, init } = requestOf(await route.sample(fixture));
 *   const res = await api(path, { ...init, token: chatToken });
 *   // route.scope says whether a chat token may: "public" | "chat" | "approve" | "admin"
 * }
 */

/**
 * Who may call a route. Each scope includes the ones before it: `public` needs no token, `chat`
 * talks to agents and reads what they did, `approve` also decides approvals, `admin` configures.
 */
export type Scope = "public" | "chat" | "approve" | "admin";

/**
 * A route family answers errors in its own shape: `api`, `agui` (before its stream starts) and
 * `socket` `{ error: { code, message, requestId } }`, `openai` OpenAI's, `mcp` and `a2a` JSON-RPC's.
 */
export type RouteFamily = "api" | "openai" | "mcp" | "a2a" | "agui" | "socket";

/** Methods as `app.routes` spells them; `ALL` is a route registered with `app.all`. */
export type RouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "ALL";

/** What samples act on: made once by `makeRouteFixture()` with the admin token, in project `default`. */
export interface RouteFixture {
  /** A plain agent (offline model): chat, history, memory, tools, context. */
  agent: string;
  /** `agent` connects to it (`/ask helper …` starts a conversation). */
  helper: string;
  /** An agent whose runs of `/tool clock.now` wait for approval. */
  gated: string;
  /** An agent with a script: a cron behavior `morning` in talent `brief`. */
  scripted: string;
  /** A session of `agent`. */
  session: string;
  /** A completed run of `agent`. */
  run: string;
  /** A memory of `agent`. */
  memory: string;
  /** A delegation chain started by `agent` (the id of its asking run). */
  conversation: string;
  /** The MCP test server (test/doubles/mcp-server.ts). */
  mcpUrl: string;
  /** An agent whose allowlist holds the MCP test server's host (loopback is let through in tests only). */
  mcpAgent: string;
  /** An orchestrating agent (offline model) with the work tools. */
  planner: string;
  /** A feature of `planner` with an approved plan, two synced tasks and a file `context/brief.md`. */
  feature: string;
  /** An image of `agent` (a 2x2 GIF header, all ASCII so a text sample carries it). */
  image: string;
}

/** The smallest bytes the image sniffing takes as a GIF (2x2), written as text. */
export const gifText = "GIF89a\u0002\u0000\u0002\u0000\u0000\u0000\u0000;";

/** One request: the path params fill `path`; `method` is needed for `ALL` routes. */
export interface RouteSample {
  method?: Exclude<RouteMethod, "ALL">;
  params: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** JSON (sent with `Content-Type: application/json`) or raw text with its own content type. */
  body?: { json: unknown } | { text: string; contentType: string };
}

export interface RouteEntry {
  method: RouteMethod;
  /** The path pattern exactly as `app.routes` has it, e.g. `/api/agents/:name/sessions/:id`. */
  path: string;
  family: RouteFamily;
  scope: Scope;
  /** What the sample answers with the admin token (a fallback route answers 404 by design). */
  expect: number;
  /**
   * Only the deployment's admin secret opens it (creating and deleting projects): a project's own
   * token of the route's scope gets 403 too.
   */
  deploymentAdminOnly?: true;
  /**
   * A valid request. Samples that consume their target (deletes, approvals, cancels) make a fresh
   * one on each call, so a sample can be replayed once per token.
   */
  sample(fixture: RouteFixture): RouteSample | Promise<RouteSample>;
}

/**
 * Entries of `app.routes` that are not routes: middleware registered with `app.use`, and the
 * PWA's static assets. (`ALL /api/*`, `ALL /v1/*` and `ALL /a2a/*` hold middleware too, but also the not-found
 * fallbacks, so they are in the inventory.)
 */
export const nonRoutes: readonly { method: RouteMethod; path: string; why: string }[] = [
  { method: "ALL", path: "/*", why: "request id middleware" },
  { method: "ALL", path: "/mcp", why: "project, body limit and auth middleware of /mcp" },
  { method: "ALL", path: "/git/:project/:repo/*", why: "token and project middleware of a feature's git repository" },
  { method: "GET", path: "/*", why: "the PWA's static assets (catch-all)" },
];

const ndjson = "application/x-ndjson";
/** The smallest eval suite: one case the offline model passes. */
const inventorySuite = { name: "inventory", cases: [{ name: "says something", input: "hi", expect: [{ notContains: "zzz-never" }] }] };
const mcpAccept = { accept: "application/json, text/event-stream" };

/** A DSL script for `name` with one cron behavior (`brief/morning`) that can be paused and resumed. */
export const scriptFor = (name: string) => `; the fuzz's scripted agent
(actor "${name}"
  (description "Prepares a brief.")
  (model :provider "offline" :name "offline")
  (tools "clock.now")
  (talent "brief"
    (behavior "morning" :persistent
      (cron "0 7 * * 1-5")
      (goal (input) "Prepare the morning brief")
      (plan (input ctx) (think)))))`;

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what} failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function chat(agent: string, content: string): Promise<{ runId: string; status: string }> {
  return json(await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content } }), `chat with ${agent}`);
}

/** A fresh agent with the gateway configured (samples that read or remove one). */
async function withGateway(kind: "telegram" | "email"): Promise<string> {
  const name = (await createAgent({ name: uniqueName("gw") })).name;
  const json = kind === "telegram" ? { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1] } : { allowedSenders: ["ann@example.com"] };
  const res = await api(`/api/agents/${name}/gateways/${kind}`, { method: "PUT", json });
  if (!res.ok) throw new Error(`configure ${kind} gateway failed: ${res.status} ${await res.text()}`);
  return name;
}

/** A run of the gated agent waiting for a person to approve its `clock.now` call. */
async function waitingRun(f: RouteFixture): Promise<string> {
  const outcome = await chat(f.gated, "/tool clock.now {}");
  if (outcome.status !== "waiting_approval") throw new Error(`expected a run waiting for approval, got ${outcome.status}`);
  return outcome.runId;
}

const plannerTools = ["feature.create", "plan.write", "plan.read", "tasks.sync", "task.start", "task.discard", "status", "fs.list", "fs.read"];
const featurePlan = "# Plan\n\n## Tasks\n\n1. One — the first task\n2. Two — the second task\n";

/** A fresh feature of the fixture's planner: planned, approved and synced unless `upTo` stops earlier. */
async function freshFeature(f: Pick<RouteFixture, "planner">, upTo: "created" | "planned" | "synced" = "synced"): Promise<string> {
  const name = uniqueName("feat").replace(/[^a-z0-9-]/g, "").slice(0, 40);
  await json(await api("/api/features", { method: "POST", json: { name, title: "A sample feature", orchestrator: f.planner, files: { "context/brief.md": "Keep it small.\n" } } }), "create feature");
  if (upTo === "created") return name;
  await json(await api(`/api/features/${name}/plan`, { method: "PUT", json: { markdown: featurePlan } }), "write plan");
  if (upTo === "planned") return name;
  await json(await api(`/api/features/${name}/plan/approve`, { method: "POST", json: {} }), "approve plan");
  await json(await api(`/api/features/${name}/tasks/sync`, { method: "POST" }), "sync tasks");
  return name;
}

/** A feature whose task 2 is blocked: both tasks changed one file, task 1 committed first. */
async function blockedTask(f: Pick<RouteFixture, "planner">): Promise<string> {
  const name = await freshFeature(f);
  const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${name}`));
  const admin = { kind: "person", id: "admin", scope: "admin" };
  for (const task of [1, 2]) {
    await stub.beginTask(task, admin);
    await stub.writeFile({ task, path: "context/brief.md", content: `task ${task}\n` }, { kind: "agent", name: `${name}-task-${task}` });
  }
  await stub.commitTask({ task: 1, key: "one" }, admin);
  const blocked = await stub.commitTask({ task: 2, key: "two" }, admin);
  if (blocked.value?.status !== "blocked") throw new Error(`expected a blocked task, got ${JSON.stringify(blocked)}`);
  return name;
}

/** A feature whose planner asked a question before planning (clarify): the answer route's sample. */
async function askedQuestion(f: Pick<RouteFixture, "planner">) {
  const name = await freshFeature(f, "created");
  const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${name}`));
  const asked = await stub.askQuestion(`Which scope for ${name}?`, { kind: "agent", name: f.planner });
  return { params: { feature: name, id: asked.value.id as string }, body: { json: { answer: "Small." } } };
}

/** A feature whose task 1 is in progress (begun, no worker run) with one changed file. */
async function taskInProgress(f: Pick<RouteFixture, "planner">): Promise<string> {
  const name = await freshFeature(f);
  const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${name}`));
  await stub.beginTask(1, { kind: "person", id: "admin", scope: "admin" });
  await stub.writeFile({ task: 1, path: "notes.md", content: "a note\n" }, { kind: "agent", name: `${name}-task-1` });
  return name;
}

/** Creates the agents, session, run, memory and conversation the samples use. */
export async function makeRouteFixture(): Promise<RouteFixture> {
  const helper = (await createAgent({ name: uniqueName("helper"), description: "Answers the fuzz's questions." })).name;
  const agent = (await createAgent({ name: uniqueName("fuzz") })).name;
  const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
  const mcpAgent = (await createAgent({ name: uniqueName("mcp"), runtime: { tools: ["clock.now"], allowHosts: [new URL(mcpUrl).hostname] } })).name;
  await json(await api(`/api/agents/${agent}/connections`, { method: "PUT", json: { connections: [helper] } }), "connect");
  const gated = (await createAgent({ name: uniqueName("gated"), runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } })).name;
  const scripted = uniqueName("scripted");
  const put = await api(`/api/agents/${scripted}/script`, { method: "PUT", headers: { "content-type": "text/x-pantheon" }, body: scriptFor(scripted) });
  await json(put, "script");
  const session = (await json<{ id: string }>(await api(`/api/agents/${agent}/sessions`, { method: "POST", json: { title: "fuzz" } }), "session")).id;
  const run = (await chat(agent, "hello")).runId;
  const memory = (await json<{ id: string }>(await api(`/api/agents/${agent}/memories`, { method: "POST", json: { text: "The launch code word is pineapple." } }), "memory")).id;
  const conversation = (await chat(agent, `/ask ${helper} what do you know?`)).runId;
  const planner = (await createAgent({ name: uniqueName("planner"), runtime: { tools: plannerTools } })).name;
  const feature = await freshFeature({ planner });
  const image = (await json<{ id: string }>(await api(`/api/agents/${agent}/images`, { method: "POST", headers: { "content-type": "image/gif" }, body: gifText }), "image")).id;
  return { agent, helper, gated, scripted, session, run, memory, conversation, mcpUrl, mcpAgent, planner, feature, image };
}

/**
 * Every route of the app. Scopes: `chat` talks to agents and reads their history, sessions, runs,
 * traces, tools and conversations (and `/v1`, `/mcp`, the socket); `approve` adds deciding
 * approvals and the approvals inbox; `admin` configures agents, scripts, runtime, gates, tool
 * invocation, MCP servers, memory, context, schedules, bus, connections and tokens.
 */
export const routeInventory: readonly RouteEntry[] = [
  // ---- health --------------------------------------------------------------------------------
  { method: "GET", path: "/api/health", family: "api", scope: "public", expect: 200, sample: () => ({ params: {} }) },
  // Authenticated (a DO round trip for the benchmarks): any token, so the lowest scope that has one.
  { method: "GET", path: "/api/health/echo", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {}, query: { x: "ping" } }) },

  // ---- agents --------------------------------------------------------------------------------
  { method: "GET", path: "/api/agents", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "POST", path: "/api/agents", family: "api", scope: "admin", expect: 201,
    sample: () => ({ params: {}, body: { json: { name: uniqueName("made"), description: "Made by a sample", systemPrompt: "Be brief.", model: { provider: "offline", name: "offline" }, runtime: { tools: ["clock.now"], limits: { maxSteps: 4 } } } } }),
  },
  { method: "GET", path: "/api/agents/:name/export", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, query: { format: "openai" } }) },
  {
    method: "POST", path: "/api/agents/import", family: "api", scope: "admin", expect: 201,
    sample: () => ({
      params: {}, query: { format: "anthropic" },
      body: { json: { name: uniqueName("imported"), config: { model: "claude-sonnet-4-5", system: "Be brief.", max_tokens: 512, tools: [{ name: "get_weather", description: "Get the weather", input_schema: { type: "object", properties: { location: { type: "string" } } } }] } } },
    }),
  },
  { method: "GET", path: "/api/agents/:name", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "PATCH", path: "/api/agents/:name", family: "api", scope: "admin", expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: { json: { description: "Patched by a sample", runtime: { tools: ["clock.now"], gates: [{ name: "no-secrets", kind: "deny-pattern", pattern: "password" }], rateLimits: { "*": { capacity: 100, refillPerSec: 10 } } } } },
    }),
  },
  { method: "DELETE", path: "/api/agents/:name", family: "api", scope: "admin", expect: 204, sample: async () => ({ params: { name: (await createAgent({ name: uniqueName("doomed") })).name } }) },

  // ---- messages and sessions -----------------------------------------------------------------
  { method: "POST", path: "/api/agents/:name/messages", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent }, body: { json: { content: "hello", session: f.session, limits: { maxSteps: 2 } } } }) },
  { method: "GET", path: "/api/agents/:name/messages", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent }, query: { session: f.session, limit: "10" } }) },
  { method: "POST", path: "/api/agents/:name/images", family: "api", scope: "chat", expect: 201, sample: (f) => ({ params: { name: f.agent }, body: { text: gifText, contentType: "image/gif" } }) },
  { method: "GET", path: "/api/agents/:name/images/:id", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent, id: f.image } }) },
  { method: "GET", path: "/api/agents/:name/sessions", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  { method: "POST", path: "/api/agents/:name/sessions", family: "api", scope: "chat", expect: 201, sample: (f) => ({ params: { name: f.agent }, body: { json: { title: "a sample session" } } }) },
  { method: "PATCH", path: "/api/agents/:name/sessions/:id", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent, id: f.session }, body: { json: { title: "renamed" } } }) },
  { method: "POST", path: "/api/agents/:name/sessions/:id/fork", family: "api", scope: "chat", expect: 201, sample: (f) => ({ params: { name: f.agent, id: f.session }, body: { json: { title: "a fork" } } }) },
  {
    method: "DELETE", path: "/api/agents/:name/sessions/:id", family: "api", scope: "chat", expect: 204,
    sample: async (f) => ({ params: { name: f.agent, id: (await json<{ id: string }>(await api(`/api/agents/${f.agent}/sessions`, { method: "POST", json: {} }), "session")).id } }),
  },

  // ---- runs and approvals --------------------------------------------------------------------
  { method: "GET", path: "/api/agents/:name/runs", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent }, query: { limit: "5" } }) },
  { method: "GET", path: "/api/agents/:name/runs/:id", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent, id: f.run } }) },
  { method: "POST", path: "/api/agents/:name/runs/:id/cancel", family: "api", scope: "chat", expect: 200, sample: async (f) => ({ params: { name: f.gated, id: await waitingRun(f) } }) },
  {
    method: "POST", path: "/api/agents/:name/runs/:id/approval", family: "api", scope: "approve", expect: 200,
    sample: async (f) => ({ params: { name: f.gated, id: await waitingRun(f) }, body: { json: { decision: "approve", reason: "looks fine" } } }),
  },
  { method: "GET", path: "/api/approvals", family: "api", scope: "approve", expect: 200, sample: () => ({ params: {} }) },

  // ---- tools and MCP servers -----------------------------------------------------------------
  { method: "GET", path: "/api/agents/:name/tools", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "POST", path: "/api/agents/:name/tools/import", family: "api", scope: "admin", expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { format: "anthropic", tools: [{ name: "get_weather", description: "Get the current weather in a given location", input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } }] } } }),
  },
  { method: "POST", path: "/api/agents/:name/tools/:tool/invoke", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent, tool: "clock.now" }, body: { json: { arguments: {} } } }) },
  { method: "GET", path: "/api/agents/:name/mcp", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  { method: "POST", path: "/api/agents/:name/mcp", family: "api", scope: "admin", expect: 201, sample: (f) => ({ params: { name: f.mcpAgent }, body: { json: { name: `calc-${uniqueName("c").slice(-6).replace(/[^a-z0-9]/g, "")}`, url: f.mcpUrl } } }) },
  {
    method: "DELETE", path: "/api/agents/:name/mcp/:id", family: "api", scope: "admin", expect: 204,
    sample: async (f) => {
      const id = `gone-${uniqueName("m").slice(-6).replace(/[^a-z0-9]/g, "")}`;
      await json(await api(`/api/agents/${f.mcpAgent}/mcp`, { method: "POST", json: { name: id, url: f.mcpUrl } }), "connect MCP server");
      return { params: { name: f.mcpAgent, id } };
    },
  },

  // ---- scripts and schedules -----------------------------------------------------------------
  {
    method: "PUT", path: "/api/agents/:name/script", family: "api", scope: "admin", expect: 200,
    sample: (f) => ({ params: { name: f.scripted }, body: { text: scriptFor(f.scripted), contentType: "text/x-pantheon" } }),
  },
  { method: "GET", path: "/api/agents/:name/script", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.scripted } }) },
  { method: "GET", path: "/api/agents/:name/schedules", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.scripted } }) },
  { method: "POST", path: "/api/agents/:name/schedules/:behavior/pause", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.scripted, behavior: "morning" } }) },
  { method: "POST", path: "/api/agents/:name/schedules/:behavior/resume", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.scripted, behavior: "morning" } }) },
  {
    method: "POST", path: "/api/agents/:name/tick", family: "api", scope: "admin", expect: 200,
    sample: async () => ({ params: { name: (await createAgent({ goals: ["Say hello"] })).name }, body: { json: {} } }),
  },

  // ---- memory and context --------------------------------------------------------------------
  { method: "GET", path: "/api/agents/:name/memories/status", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  { method: "GET", path: "/api/agents/:name/memories/export", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "POST", path: "/api/agents/:name/memories/import", family: "api", scope: "admin", expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { text: '{"kind":"fact","text":"The user likes tea"}\n', contentType: ndjson } }),
  },
  // Snapshots (workers/api/snapshots.ts): lines without a header go into the existing agent, idempotent by id.
  { method: "GET", path: "/api/agents/:name/snapshot", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "POST", path: "/api/agents/:name/snapshot/restore", family: "api", scope: "admin", expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { text: '{"type":"session","id":"inventory-s1","title":"Inventory","isDefault":false,"createdAt":1,"updatedAt":1}\n', contentType: ndjson } }),
  },
  // Evals (workers/api/evals.ts): running one is the operator's; reading them is talking.
  { method: "POST", path: "/api/agents/:name/evals", family: "api", scope: "admin", expect: 201, sample: (f) => ({ params: { name: f.agent }, body: { json: { suite: inventorySuite } } }) },
  { method: "GET", path: "/api/agents/:name/evals", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "GET", path: "/api/agents/:name/evals/:id", family: "api", scope: "chat", expect: 200,
    sample: async (f) => ({ params: { name: f.agent, id: (await json<{ run: { id: string } }>(await api(`/api/agents/${f.agent}/evals`, { method: "POST", json: { suite: inventorySuite } }), "eval run")).run.id } }),
  },
  { method: "POST", path: "/api/agents/:name/memories/reembed", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  { method: "POST", path: "/api/agents/:name/memories/consolidate", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  { method: "GET", path: "/api/agents/:name/memories", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, query: { q: "launch code", kind: "fact", limit: "5" } }) },
  {
    method: "POST", path: "/api/agents/:name/memories", family: "api", scope: "admin", expect: 201,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { text: "The user prefers short answers.", kind: "instruction", importance: 0.5, entities: ["user"] } } }),
  },
  { method: "GET", path: "/api/agents/:name/memories/:id", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent, id: f.memory } }) },
  {
    method: "DELETE", path: "/api/agents/:name/memories/:id", family: "api", scope: "admin", expect: 204,
    sample: async (f) => ({ params: { name: f.agent, id: (await json<{ id: string }>(await api(`/api/agents/${f.agent}/memories`, { method: "POST", json: { text: "Soon forgotten." } }), "memory")).id } }),
  },
  { method: "GET", path: "/api/agents/:name/context", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, query: { q: "what is the launch code?", session: f.session, maxTokens: "2000" } }) },
  {
    method: "POST", path: "/api/agents/:name/sources/:source/documents", family: "api", scope: "admin", expect: 201,
    sample: (f) => ({ params: { name: f.agent, source: "handbook" }, body: { json: { title: "Handbook", text: "Releases ship on Tuesdays." } } }),
  },

  // ---- connections, bus, conversations, tokens -----------------------------------------------
  { method: "GET", path: "/api/agents/:name/connections", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  { method: "PUT", path: "/api/agents/:name/connections", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, body: { json: { connections: [f.helper] } } }) },
  { method: "GET", path: "/api/bus", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  { method: "GET", path: "/api/conversations/:id", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { id: f.conversation } }) },
  // ---- fan-outs and workflows (workers/api/orchestration.ts) -----------------------------------
  { method: "POST", path: "/api/agents/:name/fanouts", family: "api", scope: "chat", expect: 202, sample: (f) => ({ params: { name: f.agent }, body: { json: { targets: [f.helper], question: "ping", policy: "all" } } }) },
  {
    method: "GET", path: "/api/agents/:name/fanouts/:id", family: "api", scope: "chat", expect: 200,
    sample: async (f) => ({ params: { name: f.agent, id: (await json<{ id: string }>(await api(`/api/agents/${f.agent}/fanouts`, { method: "POST", json: { targets: [f.helper], question: "ping" } }), "fan-out")).id } }),
  },
  { method: "GET", path: "/api/agents/:name/workflows", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "POST", path: "/api/agents/:name/workflows", family: "api", scope: "admin", expect: 202,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { workflow: { name: "ping", steps: [{ id: "a", kind: "ask", agent: f.helper, input: "ping {{input}}" }] }, input: "x" } } }),
  },
  {
    method: "GET", path: "/api/agents/:name/workflows/:id", family: "api", scope: "chat", expect: 200,
    sample: async (f) => ({ params: { name: f.agent, id: (await json<{ id: string }>(await api(`/api/agents/${f.agent}/workflows`, { method: "POST", json: { workflow: { name: "ping", steps: [{ id: "a", kind: "ask", agent: f.helper, input: "ping" }] } } }), "workflow")).id } }),
  },
  { method: "GET", path: "/api/tokens", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  { method: "POST", path: "/api/tokens", family: "api", scope: "admin", expect: 201, sample: () => ({ params: {}, body: { json: { name: "a sample token" } } }) },
  {
    method: "DELETE", path: "/api/tokens/:id", family: "api", scope: "admin", expect: 204,
    sample: async () => ({ params: { id: (await json<{ id: string }>(await api("/api/tokens", { method: "POST", json: { name: "doomed" } }), "token")).id } }),
  },
  // ---- invites: people sign in by a one-time link (redeeming needs no token: the code is the credential)
  { method: "GET", path: "/api/invites", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  { method: "POST", path: "/api/invites", family: "api", scope: "admin", expect: 201, sample: () => ({ params: {}, body: { json: { name: "sample person", scope: "chat" } } }) },
  {
    method: "DELETE", path: "/api/invites/:id", family: "api", scope: "admin", expect: 204,
    sample: async () => ({ params: { id: (await json<{ id: string }>(await api("/api/invites", { method: "POST", json: { name: "withdrawn" } }), "invite")).id } }),
  },
  {
    method: "POST", path: "/api/invites/redeem", family: "api", scope: "public", expect: 201,
    sample: async () => ({ params: {}, body: { json: { code: (await json<{ code: string }>(await api("/api/invites", { method: "POST", json: { name: "sampled" } }), "invite")).code, device: "a sample phone" } } }),
  },
  // ---- features, plans and tasks ---------------------------------------------------------------
  { method: "GET", path: "/api/features", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  { method: "POST", path: "/api/features", family: "api", scope: "admin", expect: 201, sample: (f) => ({ params: {}, body: { json: { name: uniqueName("made").replace(/[^a-z0-9-]/g, "").slice(0, 40), title: "Made by a sample", orchestrator: f.planner, contextFiles: ["context/"] } } }) },
  { method: "GET", path: "/api/features/:feature", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "PATCH", path: "/api/features/:feature", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { feature: f.feature }, body: { json: { title: "Renamed by a sample" } } }) },
  { method: "DELETE", path: "/api/features/:feature", family: "api", scope: "admin", expect: 204, sample: async (f) => ({ params: { feature: await freshFeature(f, "created") } }) },
  { method: "GET", path: "/api/features/:feature/plan", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { version: "1" } }) },
  { method: "PUT", path: "/api/features/:feature/plan", family: "api", scope: "admin", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f, "created") }, body: { json: { markdown: featurePlan } } }) },
  { method: "POST", path: "/api/features/:feature/plan/comments", family: "api", scope: "chat", expect: 201, sample: (f) => ({ params: { feature: f.feature }, body: { json: { line: 5, body: "Is this small enough?" } } }) },
  { method: "POST", path: "/api/features/:feature/plan/approve", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f, "planned") }, body: { json: { version: 1 } } }) },
  { method: "POST", path: "/api/features/:feature/tasks/sync", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/tasks", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/tasks/:task", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature, task: "1" } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/start", family: "api", scope: "admin", expect: 202, sample: async (f) => ({ params: { feature: await freshFeature(f), task: "1" } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/answer", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await blockedTask(f), task: "2" }, body: { json: { answer: "Keep task 1's version." } } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/commit", family: "api", scope: "admin", expect: 200, sample: async (f) => ({ params: { feature: await taskInProgress(f), task: "1" }, body: { json: { summary: "Committed by a sample" } } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/discard", family: "api", scope: "admin", expect: 200, sample: async (f) => ({ params: { feature: await taskInProgress(f), task: "1" } }) },
  { method: "GET", path: "/api/features/:feature/files", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { prefix: "context" } }) },
  { method: "GET", path: "/api/features/:feature/files/content", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { path: "context/brief.md" } }) },
  { method: "GET", path: "/api/features/:feature/report", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/commits", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { limit: "5" } }) },
  {
    method: "GET", path: "/api/features/:feature/commits/:sha/diff", family: "api", scope: "chat", expect: 200,
    sample: async (f) => ({ params: { feature: f.feature, sha: (await json<{ commits: { sha: string }[] }>(await api(`/api/features/${f.feature}/commits`), "commits")).commits[0]!.sha } }),
  },
  { method: "GET", path: "/api/features/:feature/branches", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/download", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { format: "tar" } }) },
  // The feature has no remote: a push or pull request names what is missing.
  { method: "POST", path: "/api/features/:feature/push", family: "api", scope: "admin", expect: 400, sample: (f) => ({ params: { feature: f.feature }, body: { json: {} } }) },
  { method: "POST", path: "/api/features/:feature/pr", family: "api", scope: "admin", expect: 409, sample: (f) => ({ params: { feature: f.feature }, body: { json: {} } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/resolve", family: "api", scope: "admin", expect: 409, sample: async (f) => ({ params: { feature: await taskInProgress(f), task: "1" }, body: { json: { files: [{ path: "a.txt", content: "x\n" }] } } }) },
  // A feature's repository for plain git (workers/git-http.ts): the token of the path's project.
  { method: "GET", path: "/git/:project/:repo/info/refs", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { project: "default", repo: `${f.feature}.git` }, query: { service: "git-upload-pack" } }) },
  { method: "POST", path: "/git/:project/:repo/git-upload-pack", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { project: "default", repo: `${f.feature}.git` }, body: { text: "0000", contentType: "application/x-git-upload-pack-request" } }) },
  { method: "POST", path: "/git/:project/:repo/git-receive-pack", family: "api", scope: "chat", expect: 403, sample: (f) => ({ params: { project: "default", repo: `${f.feature}.git` }, body: { text: "0000", contentType: "application/x-git-receive-pack-request" } }) },
  { method: "ALL", path: "/git/*", family: "api", scope: "public", expect: 404, sample: () => ({ method: "GET", params: { "*": "nothing-here" } }) },
  { method: "GET", path: "/api/features/:feature/report.md", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/tasks/:task/report.md", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature, task: "1" } }) },
  { method: "GET", path: "/api/features/:feature/plan/analysis", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/questions", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "POST", path: "/api/features/:feature/questions/:id/answer", family: "api", scope: "approve", expect: 200, sample: async (f) => askedQuestion(f) },
  { method: "POST", path: "/api/features/:feature/run-all", family: "api", scope: "admin", expect: 202, sample: async (f) => ({ params: { feature: await freshFeature(f) } }) },
  { method: "POST", path: "/api/features/:feature/pause", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f) } }) },
  { method: "POST", path: "/api/features/:feature/resume", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f) } }) },

  // ---- projects ------------------------------------------------------------------------------
  { method: "GET", path: "/api/projects", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  { method: "POST", path: "/api/projects", family: "api", scope: "admin", expect: 201, deploymentAdminOnly: true, sample: () => ({ params: {}, body: { json: { slug: uniqueName("proj"), title: "A sample project" } } }) },
  {
    method: "DELETE", path: "/api/projects/:slug", family: "api", scope: "admin", expect: 204, deploymentAdminOnly: true,
    sample: async () => {
      const slug = uniqueName("gone");
      await json(await api("/api/projects", { method: "POST", json: { slug } }), "create project");
      return { params: { slug } };
    },
  },
  {
    method: "POST", path: "/api/projects/:slug/import", family: "api", scope: "admin", expect: 200,
    sample: () => ({ params: { slug: "default" }, body: { json: { agents: { [uniqueName("imported")]: { name: "Imported", description: "From a project file", tools: ["clock.now", "airtable.py"], connections: [] } } } } }),
  },
  { method: "GET", path: "/api/projects/:slug/export", family: "api", scope: "admin", expect: 200, sample: () => ({ params: { slug: "default" } }) },
  // Project secrets: that project's admin (or the deployment's); grants and the bot owners: the deployment admin only.
  { method: "GET", path: "/api/projects/:slug/secrets", family: "api", scope: "admin", expect: 200, sample: () => ({ params: { slug: "default" } }) },
  { method: "PUT", path: "/api/projects/:slug/secrets/:name", family: "api", scope: "admin", expect: 200, sample: () => ({ params: { slug: "default", name: "SAMPLE_KEY" }, body: { json: { value: "sample-secret-value" } } }) },
  {
    method: "DELETE", path: "/api/projects/:slug/secrets/:name", family: "api", scope: "admin", expect: 204,
    sample: async () => {
      const name = `GONE_${crypto.randomUUID().slice(0, 8).toUpperCase().replaceAll("-", "_")}`;
      await json(await api(`/api/projects/default/secrets/${name}`, { method: "PUT", json: { value: "to-be-deleted" } }), "set secret");
      return { params: { slug: "default", name } };
    },
  },
  { method: "PUT", path: "/api/projects/:slug/grants/:name", family: "api", scope: "admin", expect: 200, deploymentAdminOnly: true, sample: () => ({ params: { slug: "default", name: "AIRTABLE_KEY" } }) },
  {
    method: "DELETE", path: "/api/projects/:slug/grants/:name", family: "api", scope: "admin", expect: 204, deploymentAdminOnly: true,
    sample: async () => {
      await json(await api("/api/projects/default/grants/MCP_TEST_URL", { method: "PUT" }), "grant");
      return { params: { slug: "default", name: "MCP_TEST_URL" } };
    },
  },
  { method: "GET", path: "/api/gateways/telegram", family: "api", scope: "admin", expect: 200, deploymentAdminOnly: true, sample: () => ({ params: {} }) },
  // Named model providers: that project's admin (or the deployment's).
  { method: "GET", path: "/api/projects/:slug/providers", family: "api", scope: "admin", expect: 200, sample: () => ({ params: { slug: "default" } }) },
  { method: "PUT", path: "/api/projects/:slug/providers/:name", family: "api", scope: "admin", expect: 200, sample: () => ({ params: { slug: "default", name: "sample-models" }, body: { json: { baseUrl: "https://models.example.com/v1" } } }) },
  {
    method: "GET", path: "/api/projects/:slug/providers/:name", family: "api", scope: "admin", expect: 200,
    sample: async () => {
      await json(await api("/api/projects/default/providers/shown-models", { method: "PUT", json: { baseUrl: "https://models.example.com/v1" } }), "set provider");
      return { params: { slug: "default", name: "shown-models" } };
    },
  },
  {
    method: "DELETE", path: "/api/projects/:slug/providers/:name", family: "api", scope: "admin", expect: 204,
    sample: async () => {
      const name = `gone-${crypto.randomUUID().slice(0, 8)}`;
      await json(await api(`/api/projects/default/providers/${name}`, { method: "PUT", json: { baseUrl: "https://models.example.com/v1" } }), "set provider");
      return { params: { slug: "default", name } };
    },
  },
  // Daily caps (workers/api/quotas.ts): the samples remove caps or move the clock by nothing, so they hold no other test back.
  { method: "GET", path: "/api/quotas", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  { method: "PUT", path: "/api/quotas", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {}, body: { json: { tokensPerDay: null, usdPerDay: null } } }) },
  { method: "PUT", path: "/api/quotas/agents/:name", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, body: { json: { tokensPerDay: null } } }) },
  { method: "PUT", path: "/api/projects/:slug/quota-ceiling", family: "api", scope: "admin", expect: 200, deploymentAdminOnly: true, sample: () => ({ params: { slug: "default" }, body: { json: { tokensPerDay: null, usdPerDay: null } } }) },
  { method: "PUT", path: "/api/projects/:slug/test-clock", family: "api", scope: "admin", expect: 200, deploymentAdminOnly: true, sample: () => ({ params: { slug: "default" }, body: { json: { offsetMs: 0 } } }) },
  // Not found, after auth: any token reaches it.
  // ---- messaging gateways (admin config; the Telegram webhook is public and checks its own secret) ----
  { method: "PUT", path: "/api/agents/:name/gateways/telegram", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, body: { json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1] } } }) },
  { method: "GET", path: "/api/agents/:name/gateways/telegram", family: "api", scope: "admin", expect: 200, sample: async () => ({ params: { name: await withGateway("telegram") } }) },
  { method: "DELETE", path: "/api/agents/:name/gateways/telegram", family: "api", scope: "admin", expect: 204, sample: async () => ({ params: { name: await withGateway("telegram") } }) },
  { method: "POST", path: "/api/agents/:name/gateways/telegram/webhook", family: "api", scope: "admin", expect: 200, sample: async () => ({ params: { name: await withGateway("telegram") }, body: { json: { url: "https://bot.example.com/" } } }) },
  { method: "PUT", path: "/api/agents/:name/gateways/email", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { name: f.agent }, body: { json: { allowedSenders: ["ann@example.com"] } } }) },
  { method: "GET", path: "/api/agents/:name/gateways/email", family: "api", scope: "admin", expect: 200, sample: async () => ({ params: { name: await withGateway("email") } }) },
  { method: "DELETE", path: "/api/agents/:name/gateways/email", family: "api", scope: "admin", expect: 204, sample: async () => ({ params: { name: await withGateway("email") } }) },
  { method: "POST", path: "/gateways/telegram/:project/:agent", family: "api", scope: "public", expect: 401, sample: (f) => ({ params: { project: "default", agent: f.agent }, body: { json: { update_id: 1 } } }) },
  { method: "ALL", path: "/gateways/*", family: "api", scope: "public", expect: 404, sample: () => ({ method: "GET", params: { "*": "nothing-here" } }) },
  { method: "ALL", path: "/api/*", family: "api", scope: "admin", expect: 404, sample: () => ({ method: "GET", params: { "*": "nothing-here" } }) },

  // ---- OpenAI-compatible ---------------------------------------------------------------------
  {
    method: "POST", path: "/v1/chat/completions", family: "openai", scope: "chat", expect: 200,
    sample: (f) => ({ params: {}, body: { json: { model: f.agent, messages: [{ role: "system", content: "ignored" }, { role: "user", content: "hello" }], temperature: 0.2, user: "fuzz-user" } } }),
  },
  { method: "GET", path: "/v1/models", family: "openai", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  { method: "GET", path: "/v1/models/:model", family: "openai", scope: "chat", expect: 200, sample: (f) => ({ params: { model: f.agent } }) },
  { method: "ALL", path: "/v1/*", family: "openai", scope: "chat", expect: 404, sample: () => ({ method: "GET", params: { "*": "embeddings" } }) },

  // ---- MCP server ----------------------------------------------------------------------------
  {
    method: "POST", path: "/mcp", family: "mcp", scope: "chat", expect: 200,
    sample: (f) => ({ params: {}, headers: mcpAccept, body: { json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask_agent", arguments: { agent: f.agent, message: "hello" } } } } }),
  },
  { method: "GET", path: "/mcp", family: "mcp", scope: "chat", expect: 405, sample: () => ({ params: {}, headers: mcpAccept }) },
  { method: "DELETE", path: "/mcp", family: "mcp", scope: "chat", expect: 405, sample: () => ({ params: {}, headers: mcpAccept }) },

  // ---- A2A (Agent2Agent) -------------------------------------------------------------------
  { method: "GET", path: "/a2a/agents/:name/.well-known/agent-card.json", family: "a2a", scope: "chat", expect: 200, sample: (f) => ({ params: { name: f.agent } }) },
  {
    method: "POST", path: "/a2a/agents/:name", family: "a2a", scope: "chat", expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: "fuzz-1", role: "user", parts: [{ kind: "text", text: "hello" }] } } } } }),
  },
  { method: "ALL", path: "/a2a/*", family: "a2a", scope: "chat", expect: 404, sample: (f) => ({ method: "GET", params: { "*": `agents/${f.agent}/tasks` } }) },

  // ---- one agent's MCP server ------------------------------------------------------------------
  {
    method: "POST", path: "/mcp/agents/:name", family: "mcp", scope: "chat", expect: 200,
    sample: (f) => ({ params: { name: f.agent }, headers: mcpAccept, body: { json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: { message: "hello" } } } } }),
  },
  { method: "GET", path: "/mcp/agents/:name", family: "mcp", scope: "chat", expect: 405, sample: (f) => ({ params: { name: f.agent }, headers: mcpAccept }) },
  { method: "DELETE", path: "/mcp/agents/:name", family: "mcp", scope: "chat", expect: 405, sample: (f) => ({ params: { name: f.agent }, headers: mcpAccept }) },
  // Also holds the project, body limit and auth middleware of every agent's server.
  { method: "ALL", path: "/mcp/agents/*", family: "mcp", scope: "chat", expect: 404, sample: (f) => ({ method: "POST", params: { "*": `${f.agent}/extra` }, headers: mcpAccept, body: { json: { jsonrpc: "2.0", id: 1, method: "tools/list" } } }) },

  // ---- AG-UI ---------------------------------------------------------------------------------
  {
    method: "POST", path: "/agui/agents/:name", family: "agui", scope: "chat", expect: 200,
    sample: (f) => ({ params: { name: f.agent }, headers: { accept: "text/event-stream" }, body: { json: { threadId: "fuzz-thread", runId: "fuzz-run", messages: [{ id: "m1", role: "user", content: "hello" }], tools: [], context: [] } } }),
  },
  { method: "ALL", path: "/agui/*", family: "agui", scope: "chat", expect: 404, sample: () => ({ method: "GET", params: { "*": "nothing-here" } }) },

  // ---- live socket ---------------------------------------------------------------------------
  { method: "ALL", path: "/agents/*", family: "socket", scope: "chat", expect: 101, sample: (f) => ({ method: "GET", params: { "*": `agent-do/default.${f.agent}` }, headers: { upgrade: "websocket" } }) },
];

/** `method path`, the key routes.test.ts compares `app.routes` by. */
export const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

/**
 * Fills a path pattern: `:param` segments and a trailing `*` from `params`, each URI-encoded unless
 * `raw` (the fuzz sends `..` and `%00` as they are).
 */
export function fillPath(pattern: string, params: Record<string, string>, raw = false): string {
  // A lone surrogate cannot be percent-encoded (URIError); a client sends U+FFFD in its place.
  const encode = (value: string) => (raw ? value : encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")));
  return pattern
    .replace(/:([A-Za-z_]+)/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`no value for :${name} of ${pattern}`);
      return encode(value);
    })
    .replace(/\*$/, () => (params["*"] ?? "").split("/").map(encode).join("/"));
}

/** The path (with query) and RequestInit of a sample, ready for `api(path, init)`. */
export function requestOf(route: RouteEntry, sample: RouteSample): { path: string; init: RequestInit } {
  const query = sample.query ? `?${new URLSearchParams(sample.query)}` : "";
  const headers = new Headers(sample.headers);
  let body: string | undefined;
  if (sample.body && "json" in sample.body) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(sample.body.json);
  } else if (sample.body) {
    headers.set("content-type", sample.body.contentType);
    body = sample.body.text;
  }
  const method = sample.method ?? (route.method === "ALL" ? "GET" : route.method);
  return { path: fillPath(route.path, sample.params) + query, init: { method, headers, ...(body === undefined ? {} : { body }) } };
}
