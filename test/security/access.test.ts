import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { makeRouteFixture, requestOf, routeInventory, type RouteEntry, type RouteFixture } from "./routes";

/**
 * The access matrix: every route and the agent socket, with every kind of credential that must not
 * open it — none, a wrong one, a revoked one, one of another project, one whose scope is too small —
 * answers the documented status in its family's error shape; the route's own scope opens it.
 */

type Scope = "chat" | "approve" | "admin";
const order: Scope[] = ["chat", "approve", "admin"];

async function token(project: string, scope: Scope, name = `${scope} matrix`) {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name, scope },
    headers: { "x-pantheon-project": project },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}

/** The 401 of each family, in its own shape. */
async function expectUnauthorized(route: RouteEntry, res: Response, label: string) {
  expect(res.status, label).toBe(401);
  const body = (await res.json()) as any;
  if (route.family === "openai")
    expect(body.error, label).toMatchObject({ code: "invalid_api_key", type: "invalid_request_error" });
  else
    expect(body.error, label).toMatchObject({
      code: "unauthorized",
      message: expect.any(String),
      requestId: expect.any(String),
    });
}

const counts = { requests: 0, refused: 0, allowed: 0 };

describe("access matrix: every route and the socket refuse what must not open them", () => {
  let fixture: RouteFixture;
  const credentials: Record<string, string> = {};
  const scoped: Partial<Record<Scope, string>> = {};

  beforeAll(async () => {
    fixture = await makeRouteFixture();
    credentials.wrong = "pt_not-a-real-token-at-all";
    const revoked = await token("default", "admin", "revoked");
    expect((await api(`/api/tokens/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    credentials.revoked = revoked.token;
    credentials["other project"] = (await token(uniqueName("elsewhere"), "admin")).token;
    for (const scope of order) scoped[scope] = (await token("default", scope)).token;
  });

  afterAll(() => {
    console.log(
      `access matrix: ${counts.requests} requests over ${routeInventory.length} routes, ${counts.refused} refused as documented, ${counts.allowed} let through by the route's own scope`,
    );
  });

  for (const route of routeInventory) {
    if (route.scope === "public") continue;
    it(`${route.method} ${route.path} (${route.scope})`, async () => {
      const sample = await route.sample(fixture);
      const { path, init } = requestOf(route, sample);
      const send = (credential: string | null) => {
        counts.requests += 1;
        return api(path, { ...init, headers: new Headers(init.headers), token: credential });
      };

      await expectUnauthorized(route, await send(null), "no token");
      counts.refused += 1;
      for (const [kind, credential] of Object.entries(credentials)) {
        await expectUnauthorized(route, await send(credential), kind);
        counts.refused += 1;
      }
      for (const scope of order.slice(0, order.indexOf(route.scope as Scope))) {
        const res = await send(scoped[scope]!);
        expect(res.status, `a ${scope} token`).toBe(403);
        const body = (await res.json()) as any;
        expect(body.error, `a ${scope} token`).toMatchObject({
          code: "forbidden",
          details: { needed: route.scope, scope },
        });
        expect(body.error.message).toBe(
          `this needs a token with the '${route.scope}' scope; this token has '${scope}'`,
        );
        counts.refused += 1;
      }

      // Project management needs the deployment's admin secret: a project's admin token is refused too.
      if (route.deploymentAdminOnly) {
        const res = await send(scoped.admin!);
        expect(res.status, "a project's admin token").toBe(403);
        expect(((await res.json()) as any).error.message).toMatch(/^only the deployment's admin token/);
        counts.refused += 1;
      }

      // The route's own scope opens it (a fresh sample: the first may have been used up).
      const own = requestOf(route, await route.sample(fixture));
      counts.requests += 1;
      const opened = await api(own.path, {
        ...own.init,
        token: route.deploymentAdminOnly ? undefined : scoped[route.scope as Scope]!,
      });
      expect(opened.status, `a ${route.scope} token`).toBe(route.expect);
      opened.webSocket?.accept();
      opened.webSocket?.close();
      counts.allowed += 1;
    });
  }
});
