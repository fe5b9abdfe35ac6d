import { Hono, type Context, type MiddlewareHandler } from "hono";
import { projectNameSchema } from "../core/agents";
import { PantheonError } from "../core/errors";
import { featureNameSchema, resolveFeature } from "../core/work";
import { call, featureStub, registryStub } from "../durable-objects/stubs";
import { checkScope, verifyToken } from "./auth";
import type { AppEnv } from "./env";
import { requireProject } from "./projects";

/** Git's own way to ask for credentials: a 401 with a Basic challenge makes `git` prompt or use its helper; the body is the API's error shape. */
const challenge = (c: Context<AppEnv>) =>
  c.json(
    {
      error: {
        code: "unauthorized",
        message: "a token of this project is needed (as the HTTP basic password, or a bearer token)",
        requestId: c.get("requestId"),
      },
    },
    401,
    { "www-authenticate": 'Basic realm="Pantheon"' },
  );

/**
 * The token of a git request: the HTTP basic password (any user name: `git clone
 * https://x:<token>@host/git/<project>/<feature>.git`, or a credential helper) or a bearer token
 * (`git -c http.extraHeader="Authorization: Bearer <token>"`). It must belong to the path's project.
 */
const gitAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const project = c.req.param("project") ?? "";
  if (!projectNameSchema.safeParse(project).success) throw new PantheonError("not_found", "no such repository");
  c.set("project", project);
  const header = c.req.header("authorization") ?? "";
  let token = "";
  if (/^bearer /i.test(header)) token = header.slice(7).trim();
  else if (/^basic /i.test(header)) {
    let decoded = "";
    try {
      decoded = atob(header.slice(6).trim());
    } catch {
      return challenge(c);
    }
    token = decoded.slice(decoded.indexOf(":") + 1);
  }
  if (!token || !(await verifyToken(token, c))) return challenge(c);
  checkScope(c, "chat");
  await next();
};

async function repoOf(env: Env, project: string, repoName: string) {
  const feature = repoName.replace(/\.git$/, "");
  if (!featureNameSchema.safeParse(feature).success)
    throw new PantheonError("not_found", `no repository '${repoName}'`);
  const names = (await registryStub(env, project).featureIndex()).map((f) => f.name);
  resolveFeature({ explicit: feature, all: names });
  return featureStub(env, project, feature).repo(project);
}

/**
 * A feature's repository over git's smart-HTTP protocol (fetch and clone only: upload-pack), at
 * `/git/<project>/<feature>.git`: `git clone https://<host>/git/acme/login-page.git` with a token
 * of that project (chat scope: reading the code is reading its files).
 */
export const gitHttpRoutes = new Hono<AppEnv>()
  .use("/:project/:repo/*", gitAuth, requireProject)
  .get("/:project/:repo/info/refs", async (c) => {
    if (c.req.query("service") !== "git-upload-pack")
      throw new PantheonError(
        "forbidden",
        "this repository is read-only over git: push goes through POST /api/features/:feature/push; only git-upload-pack (clone, fetch) is served",
      );
    const body = await call((await repoOf(c.env, c.get("project"), c.req.param("repo"))).advertise());
    return c.body(new Uint8Array(body), 200, {
      "content-type": "application/x-git-upload-pack-advertisement",
      "cache-control": "no-cache",
    });
  })
  .post("/:project/:repo/git-upload-pack", async (c) => {
    const request = new Uint8Array(await c.req.arrayBuffer());
    const body = await call((await repoOf(c.env, c.get("project"), c.req.param("repo"))).uploadPack(request));
    return c.body(new Uint8Array(body), 200, {
      "content-type": "application/x-git-upload-pack-result",
      "cache-control": "no-cache",
    });
  })
  .post("/:project/:repo/git-receive-pack", () => {
    throw new PantheonError(
      "forbidden",
      "this repository is read-only over git: push goes through POST /api/features/:feature/push",
    );
  });
