import { api } from "../../api/client";
import { json } from "./fixture";
import type { RouteEntry } from "./types";

const ndjson = "application/x-ndjson";
/** The smallest eval suite: one case the offline model passes. */
const inventorySuite = {
  name: "inventory",
  cases: [{ name: "says something", input: "hi", expect: [{ notContains: "zzz-never" }] }],
};

/** An agent's memory and context: memories, snapshots, evals, documents. */
export const memoryRoutes: readonly RouteEntry[] = [
  // ---- memory and context --------------------------------------------------------------------
  {
    method: "GET",
    path: "/api/agents/:name/memories/status",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/memories/export",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/memories/import",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: { text: '{"kind":"fact","text":"The user likes tea"}\n', contentType: ndjson },
    }),
  },
  // Snapshots (workers/api/snapshots.ts): lines without a header go into the existing agent, idempotent by id.
  {
    method: "GET",
    path: "/api/agents/:name/snapshot",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/snapshot/restore",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: {
        text: '{"type":"session","id":"inventory-s1","title":"Inventory","isDefault":false,"createdAt":1,"updatedAt":1}\n',
        contentType: ndjson,
      },
    }),
  },
  // Evals (workers/api/evals.ts): running one is the operator's; reading them is talking.
  {
    method: "POST",
    path: "/api/agents/:name/evals",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { suite: inventorySuite } } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/evals",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/evals/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: async (f) => ({
      params: {
        name: f.agent,
        id: (
          await json<{ run: { id: string } }>(
            await api(`/api/agents/${f.agent}/evals`, { method: "POST", json: { suite: inventorySuite } }),
            "eval run",
          )
        ).run.id,
      },
    }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/memories/reembed",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/memories/consolidate",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/memories",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, query: { q: "launch code", kind: "fact", limit: "5" } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/memories",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: (f) => ({
      params: { name: f.agent },
      body: {
        json: { text: "The user prefers short answers.", kind: "instruction", importance: 0.5, entities: ["user"] },
      },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/memories/:id",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent, id: f.memory } }),
  },
  {
    method: "DELETE",
    path: "/api/agents/:name/memories/:id",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async (f) => ({
      params: {
        name: f.agent,
        id: (
          await json<{ id: string }>(
            await api(`/api/agents/${f.agent}/memories`, { method: "POST", json: { text: "Soon forgotten." } }),
            "memory",
          )
        ).id,
      },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/context",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      query: { q: "what is the launch code?", session: f.session, maxTokens: "2000" },
    }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/sources/:source/documents",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: (f) => ({
      params: { name: f.agent, source: "handbook" },
      body: { json: { title: "Handbook", text: "Releases ship on Tuesdays." } },
    }),
  },
];
