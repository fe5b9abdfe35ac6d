import { api } from "../../api/client";
import { json } from "./fixture";
import type { RouteEntry } from "./types";

/** Connections, the bus, conversations, fan-outs and workflows, tokens and invites. */
export const orchestrationRoutes: readonly RouteEntry[] = [
  // ---- connections, bus, conversations, tokens -----------------------------------------------
  {
    method: "GET",
    path: "/api/agents/:name/connections",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "PUT",
    path: "/api/agents/:name/connections",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { connections: [f.helper] } } }),
  },
  { method: "GET", path: "/api/bus", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "GET",
    path: "/api/conversations/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { id: f.conversation } }),
  },
  // ---- fan-outs and workflows (workers/api/orchestration.ts) -----------------------------------
  {
    method: "POST",
    path: "/api/agents/:name/fanouts",
    family: "api",
    scope: "chat",
    expect: 202,
    sample: (f) => ({
      params: { name: f.agent },
      body: { json: { targets: [f.helper], question: "ping", policy: "all" } },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/fanouts/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: async (f) => ({
      params: {
        name: f.agent,
        id: (
          await json<{ id: string }>(
            await api(`/api/agents/${f.agent}/fanouts`, {
              method: "POST",
              json: { targets: [f.helper], question: "ping" },
            }),
            "fan-out",
          )
        ).id,
      },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/workflows",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/workflows",
    family: "api",
    scope: "admin",
    expect: 202,
    sample: (f) => ({
      params: { name: f.agent },
      body: {
        json: {
          workflow: { name: "ping", steps: [{ id: "a", kind: "ask", agent: f.helper, input: "ping {{input}}" }] },
          input: "x",
        },
      },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/workflows/:id",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: async (f) => ({
      params: {
        name: f.agent,
        id: (
          await json<{ id: string }>(
            await api(`/api/agents/${f.agent}/workflows`, {
              method: "POST",
              json: { workflow: { name: "ping", steps: [{ id: "a", kind: "ask", agent: f.helper, input: "ping" }] } },
            }),
            "workflow",
          )
        ).id,
      },
    }),
  },
  { method: "GET", path: "/api/tokens", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "POST",
    path: "/api/tokens",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: () => ({ params: {}, body: { json: { name: "a sample token" } } }),
  },
  {
    method: "DELETE",
    path: "/api/tokens/:id",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => ({
      params: {
        id: (
          await json<{ id: string }>(await api("/api/tokens", { method: "POST", json: { name: "doomed" } }), "token")
        ).id,
      },
    }),
  },
  // ---- invites: people sign in by a one-time link (redeeming needs no token: the code is the credential)
  { method: "GET", path: "/api/invites", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "POST",
    path: "/api/invites",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: () => ({ params: {}, body: { json: { name: "sample person", scope: "chat" } } }),
  },
  {
    method: "DELETE",
    path: "/api/invites/:id",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => ({
      params: {
        id: (
          await json<{ id: string }>(
            await api("/api/invites", { method: "POST", json: { name: "withdrawn" } }),
            "invite",
          )
        ).id,
      },
    }),
  },
  {
    method: "POST",
    path: "/api/invites/redeem",
    family: "api",
    scope: "public",
    expect: 201,
    sample: async () => ({
      params: {},
      body: {
        json: {
          code: (
            await json<{ code: string }>(
              await api("/api/invites", { method: "POST", json: { name: "sampled" } }),
              "invite",
            )
          ).code,
          device: "a sample phone",
        },
      },
    }),
  },
];
