import { api, createAgent, uniqueName } from "../../api/client";
import { gifText, json, scriptFor, waitingRun } from "./fixture";
import type { RouteEntry } from "./types";

/** Health, agents, messages and sessions, runs and approvals, tools and MCP servers, scripts and schedules. */
export const agentRoutes: readonly RouteEntry[] = [
  // ---- health --------------------------------------------------------------------------------
  { method: "GET", path: "/api/health", family: "api", scope: "public", expect: 200, sample: () => ({ params: {} }) },
  // Authenticated (a DO round trip for the benchmarks): any token, so the lowest scope that has one.
  {
    method: "GET",
    path: "/api/health/echo",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: () => ({ params: {}, query: { x: "ping" } }),
  },

  // ---- agents --------------------------------------------------------------------------------
  { method: "GET", path: "/api/agents", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "POST",
    path: "/api/agents",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: () => ({
      params: {},
      body: {
        json: {
          name: uniqueName("made"),
          description: "Made by a sample",
          systemPrompt: "Be brief.",
          model: { provider: "offline", name: "offline" },
          runtime: { tools: ["clock.now"], limits: { maxSteps: 4 } },
        },
      },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/export",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, query: { format: "openai" } }),
  },
  {
    method: "POST",
    path: "/api/agents/import",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: () => ({
      params: {},
      query: { format: "anthropic" },
      body: {
        json: {
          name: uniqueName("imported"),
          config: {
            model: "claude-sonnet-4-5",
            system: "Be brief.",
            max_tokens: 512,
            tools: [
              {
                name: "get_weather",
                description: "Get the weather",
                input_schema: { type: "object", properties: { location: { type: "string" } } },
              },
            ],
          },
        },
      },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "PATCH",
    path: "/api/agents/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: {
        json: {
          description: "Patched by a sample",
          runtime: {
            tools: ["clock.now"],
            gates: [{ name: "no-secrets", kind: "deny-pattern", pattern: "password" }],
            rateLimits: { "*": { capacity: 100, refillPerSec: 10 } },
          },
        },
      },
    }),
  },
  {
    method: "DELETE",
    path: "/api/agents/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => ({ params: { name: (await createAgent({ name: uniqueName("doomed") })).name } }),
  },

  // ---- messages and sessions -----------------------------------------------------------------
  {
    method: "POST",
    path: "/api/agents/:name/messages",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: { json: { content: "hello", session: f.session, limits: { maxSteps: 2 } } },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/messages",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, query: { session: f.session, limit: "10" } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/images",
    family: "api",
    scope: "chat",
    expect: 201,
    sample: (f) => ({ params: { name: f.agent }, body: { text: gifText, contentType: "image/gif" } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/images/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent, id: f.image } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/sessions",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/sessions",
    family: "api",
    scope: "chat",
    expect: 201,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { title: "a sample session" } } }),
  },
  {
    method: "PATCH",
    path: "/api/agents/:name/sessions/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent, id: f.session }, body: { json: { title: "renamed" } } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/sessions/:id/fork",
    family: "api",
    scope: "chat",
    expect: 201,
    sample: (f) => ({ params: { name: f.agent, id: f.session }, body: { json: { title: "a fork" } } }),
  },
  {
    method: "DELETE",
    path: "/api/agents/:name/sessions/:id",
    family: "api",
    scope: "chat",
    expect: 204,
    sample: async (f) => ({
      params: {
        name: f.agent,
        id: (
          await json<{ id: string }>(
            await api(`/api/agents/${f.agent}/sessions`, { method: "POST", json: {} }),
            "session",
          )
        ).id,
      },
    }),
  },

  // ---- runs and approvals --------------------------------------------------------------------
  {
    method: "GET",
    path: "/api/agents/:name/runs",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, query: { limit: "5" } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/runs/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent, id: f.run } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/runs/:id/cancel",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: async (f) => ({ params: { name: f.gated, id: await waitingRun(f) } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/runs/:id/approval",
    family: "api",
    scope: "approve",
    expect: 200,
    sample: async (f) => ({
      params: { name: f.gated, id: await waitingRun(f) },
      body: { json: { decision: "approve", reason: "looks fine" } },
    }),
  },
  {
    method: "GET",
    path: "/api/approvals",
    family: "api",
    scope: "approve",
    expect: 200,
    sample: () => ({ params: {} }),
  },

  // ---- tools and MCP servers -----------------------------------------------------------------
  {
    method: "GET",
    path: "/api/agents/:name/tools",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/tools/import",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: {
        json: {
          format: "anthropic",
          tools: [
            {
              name: "get_weather",
              description: "Get the current weather in a given location",
              input_schema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
            },
          ],
        },
      },
    }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/tools/:tool/invoke",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent, tool: "clock.now" }, body: { json: { arguments: {} } } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/mcp",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/mcp",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: (f) => ({
      params: { name: f.mcpAgent },
      body: {
        json: {
          name: `calc-${uniqueName("c")
            .slice(-6)
            .replace(/[^a-z0-9]/g, "")}`,
          url: f.mcpUrl,
        },
      },
    }),
  },
  {
    method: "DELETE",
    path: "/api/agents/:name/mcp/:id",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async (f) => {
      const id = `gone-${uniqueName("m")
        .slice(-6)
        .replace(/[^a-z0-9]/g, "")}`;
      await json(
        await api(`/api/agents/${f.mcpAgent}/mcp`, { method: "POST", json: { name: id, url: f.mcpUrl } }),
        "connect MCP server",
      );
      return { params: { name: f.mcpAgent, id } };
    },
  },
  // A server's questions while its tools run (elicitation): a person who may approve lists and answers
  // them (test/mcp/elicitation.test.ts answers a real one); a question that waits no more is a 404.
  {
    method: "GET",
    path: "/api/agents/:name/mcp/questions",
    family: "api",
    scope: "approve",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/mcp/questions/:question",
    family: "api",
    scope: "approve",
    expect: 404,
    sample: (f) => ({
      params: { name: f.agent, question: "00000000-0000-4000-8000-000000000000" },
      body: { json: { action: "decline" } },
    }),
  },
  // The browser's return from an MCP server's consent page: no token, the agent's one-use state is the
  // credential, so a state it never issued is a 400 (test/node/mcp-oauth.check.mjs completes a real one).
  {
    method: "GET",
    path: "/api/oauth/mcp/:project/:agent/callback",
    family: "api",
    scope: "public",
    expect: 400,
    sample: (f) => ({
      params: { project: "default", agent: f.mcpAgent },
      query: { code: "sample-code", state: "sample-nonce.calc" },
    }),
  },

  // ---- scripts and schedules -----------------------------------------------------------------
  {
    method: "PUT",
    path: "/api/agents/:name/script",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.scripted },
      body: { text: scriptFor(f.scripted), contentType: "text/x-pantheon" },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/script",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.scripted } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/schedules",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.scripted } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/schedules/:behavior/pause",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.scripted, behavior: "morning" } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/schedules/:behavior/resume",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.scripted, behavior: "morning" } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/tick",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => ({ params: { name: (await createAgent({ goals: ["Say hello"] })).name }, body: { json: {} } }),
  },
];
