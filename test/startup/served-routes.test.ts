// Every route family of the worker's app must reach the worker on the served stack. `wrangler dev`
// and Cloudflare put the static-assets layer in front of the worker: a path that no
// `run_worker_first` pattern names gets the PWA (its index.html, or 405 for a POST) and never
// meets the app. `SELF.fetch` in the other tests skips that layer, so only this test sees it.
// The families are read from the app itself (its registered routes), the patterns from wrangler.toml,
// in both config blocks (the local top level and [env.production]).
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { makeApp } from "../../workers/app";
import wranglerToml from "../../wrangler.toml?raw";

type Assets = { run_worker_first?: boolean | string[] };
type Config = { assets?: Assets; env?: Record<string, { assets?: Assets }> };

/** A concrete path a route answers: each `:param` (with its optional regex and `?`) and `*` as one segment. */
function samplePath(routePath: string): string {
  return routePath.replace(/:[A-Za-z0-9_]+(\{[^}]*\})?\??/g, "x").replace(/\*/g, "x");
}

/** Whether `run_worker_first` sends this path to the worker: a positive pattern matches and no `!` pattern does (`*` = any characters). */
function reachesWorker(path: string, runWorkerFirst: Assets["run_worker_first"]): boolean {
  if (runWorkerFirst === true) return true;
  if (!Array.isArray(runWorkerFirst)) return false;
  const matches = (glob: string) =>
    new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`).test(path);
  return (
    runWorkerFirst.some((p) => !p.startsWith("!") && matches(p)) &&
    !runWorkerFirst.some((p) => p.startsWith("!") && matches(p.slice(1)))
  );
}

/** The app's routes, except its catch-all (`*`: the PWA's assets), as sample paths grouped by first segment. */
function routeFamilies(): Map<string, string[]> {
  const families = new Map<string, string[]>();
  for (const route of makeApp().routes) {
    if (route.path === "*" || route.path === "/*") continue;
    const family = `/${route.path.split("/")[1]}`;
    const samples = families.get(family) ?? [];
    const sample = samplePath(route.path);
    if (!samples.includes(sample)) samples.push(sample);
    families.set(family, samples);
  }
  return families;
}

/** The app's sample paths that the assets block does not send to the worker. */
function unrouted(assets: Assets | undefined): string[] {
  return [...routeFamilies().values()].flat().filter((path) => !reachesWorker(path, assets?.run_worker_first));
}

const config = parse(wranglerToml) as Config;

describe("every route of the app reaches the worker on the served stack (wrangler.toml run_worker_first)", () => {
  it("finds the app's routes, every door the README documents among them (so the checks below are not vacuous)", () => {
    expect([...routeFamilies().keys()]).toEqual(
      expect.arrayContaining(["/a2a", "/agents", "/agui", "/api", "/gateways", "/mcp", "/v1"]),
    );
    expect(routeFamilies().get("/a2a")).toEqual(
      expect.arrayContaining(["/a2a/agents/x/.well-known/agent-card.json", "/a2a/agents/x"]),
    );
  });

  it("the local config ([assets], `npm start`) routes every path of every family to the worker", () => {
    expect(unrouted(config.assets)).toEqual([]);
  });

  it("the production config ([env.production.assets]) routes every path of every family to the worker", () => {
    expect(config.env?.production?.assets).toBeDefined();
    expect(unrouted(config.env?.production?.assets)).toEqual([]);
  });

  it("a config without /a2a/* leaves the A2A card and endpoint to the assets (the check can fail)", () => {
    const patterns = (config.assets?.run_worker_first as string[]).filter((p) => p !== "/a2a/*");
    expect(unrouted({ run_worker_first: patterns })).toEqual(
      expect.arrayContaining(["/a2a/agents/x", "/a2a/agents/x/.well-known/agent-card.json"]),
    );
    expect(unrouted({ run_worker_first: patterns }).every((path) => path.startsWith("/a2a/"))).toBe(true);
  });

  it("a `!` pattern takes a path back from the worker", () => {
    expect(reachesWorker("/agui/agents/x", ["/agui/*"])).toBe(true);
    expect(reachesWorker("/agui/agents/x", ["/agui/*", "!/agui/agents/*"])).toBe(false);
    expect(reachesWorker("/mcp", ["/mcp*"])).toBe(true);
    expect(reachesWorker("/mcpx", ["/mcp/*"])).toBe(false);
  });
});
