// What the server benchmarks (chat-turn, run-loop, delegation) share: percentiles, an
// authenticated JSON client for the local stack, and timing that survives wrangler dev restarts.
// Not a *.bench.mjs file, so bench/run.mjs does not list it as a module.

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/**
 * p50, p95 and mean of a list of samples (left unsorted).
 * @example
 * stats([3, 1, 2]); // { p50: 2, p95: 3, mean: 2 }
 */
export const stats = (samples) => {
  const sorted = [...samples].sort((x, y) => x - y);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: samples.reduce((s, x) => s + x, 0) / samples.length,
  };
};

/** wrangler dev rebuilds and restarts the worker when a source file changes (other people edit the tree). */
export class WorkerRestarted extends Error {
  name = "WorkerRestarted";
}

/**
 * A JSON client for the local stack: bearer token, optional project header. Throws
 * `WorkerRestarted` when wrangler dev answers that the worker restarted mid-request, and an Error
 * naming the route on any other non-2xx answer.
 * @example
 * const request = client(server);
 * const { agents } = await request("/api/agents");
 * await request("/api/agents", { method: "POST", json: { name: "scout" } });
 */
export function client({ url, token, project }) {
  return async function request(path, { method = "GET", json } = {}) {
    const headers = { authorization: `Bearer ${token}` };
    if (project !== undefined) headers["x-pantheon-project"] = project;
    if (json !== undefined) headers["content-type"] = "application/json";
    const send = () =>
      fetch(url + path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    // A keep-alive connection left idle while another module ran (vector-index takes a minute) may
    // have been closed by the server: fetch retries only idempotent requests on it, so a POST fails
    // with a socket error before reaching the worker. Sent again once, on a new connection.
    const res = await send().catch((error) => {
      if (/socket|closed|reset/i.test(String(error?.cause?.code ?? error?.cause?.message ?? ""))) return send();
      throw error;
    });
    const body = await res.text();
    if (res.status === 503 && /restarted/i.test(body))
      throw new WorkerRestarted(`${method} ${path}: ${body.slice(0, 200)}`);
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${body.slice(0, 300)}`);
    return body ? JSON.parse(body) : null;
  };
}

/**
 * Milliseconds of one successful `fn()`. An attempt cut short by a worker restart is not a sample:
 * it is counted in `restarts` and tried again once the new worker is up.
 * @example
 * const restarts = { count: 0 };
 * const ms = await timed(() => request("/api/health/echo?x=1"), restarts);
 */
export async function timed(fn, restarts) {
  for (let attempt = 0; ; attempt++) {
    const t0 = performance.now();
    try {
      await fn();
      return performance.now() - t0;
    } catch (error) {
      if (!(error instanceof WorkerRestarted) || attempt >= 5) throw error;
      restarts.count += 1;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
