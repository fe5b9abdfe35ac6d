import { describe, expect, it } from "vitest";
import type { AgentProfile } from "../../core/agents";
import type { Scope } from "../../core/auth";
import { toolScope } from "../../core/gates";
import { agentMcpScopes } from "../../core/protocols/agent-mcp";
import { builtinSpec, builtinToolNames, makeClockTool, makeHttpFetchTool, type ToolSpec } from "../../core/tools";
import { workerTools } from "../../durable-objects/feature/work";
import { systemClock } from "../../core/ports";
import { spawnToolSource } from "../../durable-objects/agent/bus/spawn";
import { memoryTools } from "../../durable-objects/agent/memory/tools";
import { contextTools } from "../../durable-objects/agent/memory/context-tools";
import { workToolNames } from "../../durable-objects/agent/work";
import { workToolSource } from "../../durable-objects/agent/work/tools";
import { makeApp } from "../../workers/app";
import { declaredScopes } from "../../workers/scopes";

/**
 * Each built-in tool declares the scope its own API route needs, beside its definition; this table
 * names that route, and the test derives the route's scope from its declaration (`scope(…)` beside the route,
 * workers/scopes.ts; an /api route that declares none needs admin). A tool with no route of its own is ordinary agent work, open to chat,
 * and says why. A new built-in tool fails here until it has a line.
 */
type Route = readonly [method: string, path: string];
const toolRoutes: Record<string, Route | { open: string }> = {
  "clock.now": { open: "reads the time" },
  "http.fetch": { open: "reaches only the hosts the operator allowed (runtime.allowHosts)" },
  "memory.store": { open: "remembering what the person said is ordinary agent work; the output gates check it" },
  "memory.search": ["GET", "/api/agents/:name/memories"],
  "memory.forget": ["DELETE", "/api/agents/:name/memories/:id"],
  "context.sources": {
    open: "lists only sources the agent's own turns may read: its document sources and what other agents grant it",
  },
  "context.search": {
    open: "reads only the agent's document sources and other agents' sources within their grants, never its memory",
  },
  "agent.spawn": {
    open: "the child is confined by the parent's spawn grant and acts for the spawning run's principal",
  },
  "feature.create": ["POST", "/api/features"],
  "plan.write": ["PUT", "/api/features/:feature/plan"],
  // Asking a person before planning is part of writing the plan: the plan route's scope.
  "plan.ask": ["PUT", "/api/features/:feature/plan"],
  "plan.read": ["GET", "/api/features/:feature/plan"],
  "tasks.sync": ["POST", "/api/features/:feature/tasks/sync"],
  "task.start": ["POST", "/api/features/:feature/tasks/:task/start"],
  "task.commit": ["POST", "/api/features/:feature/tasks/:task/commit"],
  "task.block": { open: "a worker's question to a person; answering it needs approve (POST …/tasks/:task/answer)" },
  "task.discard": ["POST", "/api/features/:feature/tasks/:task/discard"],
  status: ["GET", "/api/features/:feature/tasks"],
  "fs.list": ["GET", "/api/features/:feature/files"],
  "fs.read": ["GET", "/api/features/:feature/files/content"],
  // A worker's edits land in the feature's files only by a commit: changing files is the commit route's.
  "fs.write": ["POST", "/api/features/:feature/tasks/:task/commit"],
  "fs.delete": ["POST", "/api/features/:feature/tasks/:task/commit"],
};

const routeScopes = declaredScopes(makeApp().routes);
function routeScope([method, path]: Route): Scope {
  return routeScopes.find((r) => r.method === method && r.path === path)?.scope ?? "admin";
}

const profile = {
  name: "x",
  runtime: { tools: workToolNames },
  script: { spawn: { allowed: true, quota: 1 } },
} as unknown as AgentProfile;
const unused = () => Promise.reject(new Error("unused"));
const builtinSpecs: ToolSpec[] = [
  makeClockTool(systemClock).spec,
  makeHttpFetchTool({ fetch: unused, allowHosts: [] }).spec,
  ...memoryTools({ store: unused, search: unused, forget: unused }).specs,
  ...contextTools({
    sources: unused,
    searchOwn: unused,
    searchForeign: unused,
    readForeign: unused,
    ownSources: () => [],
  }).specs,
  ...spawnToolSource(profile).specs,
  ...workToolSource(profile, { work: {} as never, binding: () => null }).specs,
];

describe("every built-in tool needs the scope of its own route", () => {
  const appRoutes = new Set(makeApp().routes.map((r) => `${r.method} ${r.path}`));

  it("the table names every built-in tool, and nothing else", () => {
    expect(builtinSpecs.map((s) => s.name).sort()).toEqual(Object.keys(toolRoutes).sort());
  });

  it("every tool source takes its specs from the one catalog (core/tools/builtins/catalog.ts), nothing besides", () => {
    expect(builtinSpecs.map((s) => s.name)).toEqual(builtinToolNames());
    for (const spec of builtinSpecs) {
      // http.fetch names the agent's own hosts and limits in its description.
      const { description, timeoutMs, ...rest } = spec;
      const { description: listed, timeoutMs: listedTimeout, ...catalogRest } = builtinSpec(spec.name);
      expect(rest, spec.name).toEqual(catalogRest);
      if (spec.name !== "http.fetch")
        expect({ description, timeoutMs }, spec.name).toEqual({ description: listed, timeoutMs: listedTimeout });
    }
    expect(() => builtinSpec("clock.later")).toThrow("'clock.later' is not a built-in tool");
  });

  it("a task's worker gets only built-in tools", () => {
    expect(workerTools.filter((name) => !builtinToolNames().includes(name))).toEqual([]);
  });

  for (const spec of builtinSpecs) {
    const route = toolRoutes[spec.name];
    if (!route) continue;
    if ("open" in route) {
      it(`${spec.name} is open to chat: ${route.open}`, () => expect(toolScope(spec)).toBe("chat"));
      continue;
    }
    it(`${spec.name} needs what ${route[0]} ${route[1]} needs (${routeScope(route)})`, () => {
      expect(appRoutes.has(`${route[0]} ${route[1]}`), "the route exists").toBe(true);
      expect(toolScope(spec)).toBe(routeScope(route));
    });
  }

  it("memory.search and the agent's MCP search_memory need the same scope", () => {
    expect(toolScope(builtinSpecs.find((s) => s.name === "memory.search"))).toBe(agentMcpScopes.searchMemory);
  });

  it("the table can fail: a chat route is chat, an unlisted one admin", () => {
    expect(routeScope(["GET", "/api/features/:feature/plan"])).toBe("chat");
    expect(routeScope(["DELETE", "/api/agents/:name/memories/:id"])).toBe("admin");
  });
});
