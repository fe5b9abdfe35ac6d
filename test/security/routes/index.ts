/**
 * The route inventory: every route of the worker (`makeApp().routes`), with the scope a token
 * needs for it and a valid sample request. routes.test.ts keeps it complete (a route the app has
 * and this list lacks fails, named) and checks that every sample answers its `expect` status with
 * the admin token; fuzz.test.ts mutates the samples; the access matrix replays them per scope.
 * The entries are kept in one file per area beside this one (agents.ts, memory.ts, …) and listed
 * here in the order the admin-token samples run.
 *
 * @example
 * const fixture = await makeRouteFixture();
 * for (const route of routeInventory) {
 *   const { path, init } = requestOf(await route.sample(fixture));
 *   const res = await api(path, { ...init, token: chatToken });
 *   // route.scope says whether a chat token may: "public" | "chat" | "approve" | "admin"
 * }
 */

import { agentRoutes } from "./agents";
import { featureRoutes } from "./features";
import { memoryRoutes } from "./memory";
import { orchestrationRoutes } from "./orchestration";
import { projectRoutes } from "./projects";
import { protocolRoutes } from "./protocols";
import { pushRoutes } from "./push";
import type { RouteEntry } from "./types";

export { gifText, makeRouteFixture, scriptFor } from "./fixture";
export { fillPath, nonRoutes, requestOf, routeKey } from "./request";
export type { RouteEntry, RouteFamily, RouteFixture, RouteMethod, RouteSample, Scope } from "./types";

/**
 * Every route of the app. Scopes: `chat` talks to agents and reads their history, sessions, runs,
 * traces, tools and conversations (and `/v1`, `/mcp`, the socket); `approve` adds deciding
 * approvals and the approvals inbox; `admin` configures agents, scripts, runtime, gates, tool
 * invocation, MCP servers, memory, context, schedules, bus, connections and tokens.
 */
export const routeInventory: readonly RouteEntry[] = [
  ...agentRoutes,
  ...memoryRoutes,
  ...orchestrationRoutes,
  ...featureRoutes,
  ...projectRoutes,
  ...protocolRoutes,
  ...pushRoutes,
];
