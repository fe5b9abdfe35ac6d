import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { makeApp } from "../../workers/app";
import { declaredScopes, scope } from "../../workers/scopes";
import { api } from "../api/client";
import { makeRouteFixture, nonRoutes, requestOf, routeInventory, routeKey, type RouteFixture } from "./routes";

const appRoutes = [...new Set(makeApp().routes.map(routeKey))];
const inventoried = new Set(routeInventory.map(routeKey));
const excluded = new Set(nonRoutes.map(routeKey));

describe("the route inventory", () => {
  it("has an entry for every route of the app", () => {
    const missing = appRoutes.filter((key) => !inventoried.has(key) && !excluded.has(key));
    expect(missing, "routes of makeApp() missing from test/security/routes/ (the file of its area)").toEqual([]);
  });

  it("lists only routes the app has, once each", () => {
    const known = new Set(appRoutes);
    expect([...inventoried, ...excluded].filter((key) => !known.has(key))).toEqual([]);
    expect(routeInventory.length).toBe(inventoried.size);
  });

  it("every /api route declares its scope beside it, and the declaration is the inventory's scope", () => {
    const declared = new Map(declaredScopes(makeApp().routes).map((r) => [`${r.method} ${r.path}`, r.scope]));
    const apiRoutes = routeInventory.filter(
      (r) => r.path.startsWith("/api/") && r.method !== "ALL" && r.scope !== "public",
    );
    expect(apiRoutes.length).toBeGreaterThan(100);
    const wrong = apiRoutes
      .filter((r) => declared.get(routeKey(r)) !== r.scope)
      .map((r) => `${routeKey(r)}: declares ${declared.get(routeKey(r)) ?? "nothing"}, inventory says ${r.scope}`);
    expect(wrong, "declare with scope(…) as the route's first middleware (workers/scopes.ts)").toEqual([]);
  });

  it("the derived table can fail: a route without scope(…) is not in it, one with it is", () => {
    const app = new Hono()
      .get("/api/undeclared", (c) => c.text(""))
      .get("/api/declared", scope("approve"), (c) => c.text(""));
    expect(declaredScopes(app.routes)).toEqual([{ method: "GET", path: "/api/declared", scope: "approve" }]);
  });

  describe("each sample answers its expected status with the admin token", () => {
    let fixture: RouteFixture;
    beforeAll(async () => {
      fixture = await makeRouteFixture();
    }, 60_000);

    for (const route of routeInventory) {
      it(`${routeKey(route)} → ${route.expect}`, async () => {
        const { path, init } = requestOf(route, await route.sample(fixture));
        const res = await api(path, init);
        const text = route.expect === 101 ? "" : await res.text();
        res.webSocket?.accept();
        res.webSocket?.close(1000, "done");
        expect(res.status, text).toBe(route.expect);
      });
    }
  });
});
