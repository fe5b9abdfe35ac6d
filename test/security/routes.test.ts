import { beforeAll, describe, expect, it } from "vitest";
import { makeApp } from "../../workers/app";
import { api } from "../api/client";
import { makeRouteFixture, nonRoutes, requestOf, routeInventory, routeKey, type RouteFixture } from "./routes";

const appRoutes = [...new Set(makeApp().routes.map(routeKey))];
const inventoried = new Set(routeInventory.map(routeKey));
const excluded = new Set(nonRoutes.map(routeKey));

describe("the route inventory", () => {
  it("has an entry for every route of the app", () => {
    const missing = appRoutes.filter((key) => !inventoried.has(key) && !excluded.has(key));
    expect(missing, "routes of makeApp() missing from test/security/routes.ts").toEqual([]);
  });

  it("lists only routes the app has, once each", () => {
    const known = new Set(appRoutes);
    expect([...inventoried, ...excluded].filter((key) => !known.has(key))).toEqual([]);
    expect(routeInventory.length).toBe(inventoried.size);
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
