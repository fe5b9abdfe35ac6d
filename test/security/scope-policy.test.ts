import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Scope } from "../../core/auth";
import type { AppEnv } from "../../workers/env";
import { onError } from "../../workers/errors";
import { enforceScopes, scope } from "../../workers/scopes";

/**
 * The scope policy as `makeApp` installs it (workers/scopes.ts `enforceScopes`), on a small app: the
 * token's scope is the `x-scope` header here (the real auth sets it from the token). The whole app's
 * routes are covered by the access matrix (access.test.ts); this covers the cases the matrix cannot
 * tell apart: HEAD, overlapping declarations, an undeclared path, the check ahead of a route's own work.
 */
function appWith() {
  const routes = new Hono<AppEnv>()
    .get("/api/notes", scope("chat"), (c) => c.json({ notes: [] }))
    .get("/api/notes/:id", scope("chat"), (c) => c.json({ id: c.req.param("id") }))
    // Overlaps the route above: both declarations match GET /api/notes/locked.
    .get("/api/notes/locked", scope("approve"), (c) => c.json({ locked: true }))
    // An admin route whose own work would answer 404 (the agent does not exist).
    .delete("/api/notes/:id", scope("admin"), (c) => c.json({ error: "no such note" }, 404))
    .get("/api/undeclared", (c) => c.json({ open: true }));
  const app = new Hono<AppEnv>();
  app.onError(onError);
  app.use("/api/*", async (c, next) => {
    c.set("scope", (c.req.header("x-scope") ?? "chat") as Scope);
    await next();
  });
  enforceScopes(app, routes.routes);
  app.route("/", routes);
  return app;
}

const send = (method: string, path: string, scope: Scope) =>
  appWith().request(path, { method, headers: { "x-scope": scope } });

async function refusal(res: Response) {
  return { status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message };
}

describe("scope policy: one check per request from the declarations", () => {
  it("a chat token opens a chat route; the same token is refused an approve route that overlaps it, naming approve", async () => {
    expect((await send("GET", "/api/notes/n1", "chat")).status).toBe(200);
    expect(await refusal(await send("GET", "/api/notes/locked", "chat"))).toEqual({
      status: 403,
      message: "this needs a token with the 'approve' scope; this token has 'chat'",
    });
    expect((await send("GET", "/api/notes/locked", "approve")).status).toBe(200);
  });

  it("HEAD of a chat route is open to a chat token, as its GET is; HEAD of an approve route is not", async () => {
    expect((await send("HEAD", "/api/notes", "chat")).status).toBe(200);
    expect((await send("HEAD", "/api/notes/locked", "chat")).status).toBe(403);
    expect((await send("HEAD", "/api/notes/locked", "approve")).status).toBe(200);
  });

  it("a path with no declaration needs admin", async () => {
    expect(await refusal(await send("GET", "/api/undeclared", "approve"))).toEqual({
      status: 403,
      message: "this needs a token with the 'admin' scope; this token has 'approve'",
    });
    expect((await send("GET", "/api/undeclared", "admin")).status).toBe(200);
    // A method a declared path does not declare is undeclared too.
    expect((await send("PUT", "/api/notes", "approve")).status).toBe(403);
  });

  it("an admin route refuses a smaller token before its own work (403, not the route's 404)", async () => {
    expect((await send("DELETE", "/api/notes/n1", "approve")).status).toBe(403);
    expect((await send("DELETE", "/api/notes/n1", "admin")).status).toBe(404);
  });
});
