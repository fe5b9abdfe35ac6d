// What the Node-side checks (*.check.mjs) share: a tally of named checks that prints TAP-like
// lines, and the summary line `N passed, N failed` that test/node/run.mjs and scripts/test.mjs
// count. Not a *.check.mjs file, so test/node/run.mjs does not run it.
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cliPath = join(dirname(fileURLToPath(import.meta.url)), "../../cli/pantheon.ts");

/**
 * A tally of checks. `check` prints `ok - name` or `not ok - name: detail`, `skip` prints
 * `skip - name: why` (a check that cannot run here, counted apart); `finish` prints the summary
 * as the last line and exits non-zero when any check failed.
 * @example
 * const { check, finish } = makeChecks();
 * check("health says the server is up", health.code === 0, shown(health));
 * finish();
 */
export function makeChecks() {
  const results = [];
  let skipped = 0;
  return {
    check(name, ok, detail = "") {
      results.push(Boolean(ok));
      console.log(`${ok ? "ok" : "not ok"} - ${name}${ok ? "" : `: ${detail}`}`);
    },
    skip(name, why) {
      skipped += 1;
      console.log(`skip - ${name}: ${why}`);
    },
    finish() {
      const passed = results.filter(Boolean).length;
      console.log(`${passed} passed, ${results.length - passed} failed${skipped ? `, ${skipped} skipped` : ""}`);
      process.exit(results.every(Boolean) ? 0 : 1);
    },
  };
}

/**
 * A JSON caller for a local stack with a bearer token: `call(url, path, init)` answers
 * `{ status, body }`, with `body` null when the answer is not JSON. The url is per call because a
 * check may restart the server on another port.
 * @example
 * const call = makeCall(token);
 * const sent = await call(server.url, "/api/agents", { method: "POST", body: JSON.stringify({ name: "keeper" }) });
 */
export function makeCall(token) {
  return async function call(url, path, init = {}) {
    const res = await fetch(`${url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
}

/**
 * A JSON caller on one server that names token and project per call (the multi-tenant checks):
 * `call(token, project, path, init)` answers `{ status, body, text }`, body null when not JSON.
 * An undefined project sends no project header (the token's own project).
 * @example
 * const call = makeProjectCall(server.url);
 * await call(adminToken, "a", "/api/agents");
 */
export function makeProjectCall(url) {
  return async function call(token, project, path, init = {}) {
    const projectHeader = project === undefined ? {} : { "x-pantheon-project": project };
    const res = await fetch(`${url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...projectHeader,
        ...init.headers,
      },
    });
    const text = await res.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, text };
  };
}

/**
 * A project made by the deployment admin, with an admin token of its own: `{ slug, token, call(path, init) }`.
 * @example
 * const a = await makeTenant(call, deploymentToken, "a");
 */
export async function makeTenant(call, deploymentToken, slug) {
  await call(deploymentToken, "default", "/api/projects", { method: "POST", body: JSON.stringify({ slug }) });
  const made = await call(deploymentToken, slug, "/api/tokens", {
    method: "POST",
    body: JSON.stringify({ name: `${slug} admin`, scope: "admin" }),
  });
  return { slug, token: made.body.token, call: (path, init) => call(made.body.token, slug, path, init) };
}

/**
 * A tally of measured lines (the embedding checks print a figure on every line, passed or not):
 * `check(ok, line)` prints `ok   line` or `FAIL line`; `finish` as in `makeChecks`.
 * @example
 * const { check, finish } = makeLineChecks();
 * check(score >= 0.5, `similar cosine ${score.toFixed(4)}`);
 * finish();
 */
export function makeLineChecks() {
  let passed = 0;
  let failed = 0;
  return {
    check(ok, line) {
      console.log(`${ok ? "ok  " : "FAIL"} ${line}`);
      if (ok) passed += 1;
      else failed += 1;
    },
    finish() {
      console.log(`${passed} passed, ${failed} failed`);
      process.exit(failed > 0 ? 1 : 0);
    },
  };
}

/**
 * Cosine similarity of two vectors of the same length.
 * @example
 * cosine([1, 0], [1, 1]); // ≈ 0.7071
 */
export function cosine(a, b) {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/**
 * The real CLI (`cli/pantheon.ts`) in a child process, as an operator runs it:
 * `cli(args, { token, project, input, cwd, env })` answers `{ code, stdout, stderr }` (code 1 when
 * the process died without a numeric exit code, e.g. on the timeout). Per-call `token`, `project`,
 * `input` and `cwd` override the defaults given to `makeCli`; `env` is laid over everything. Only
 * the variables named are set: `project: ""` sets PANTHEON_PROJECT empty (so the shell's own cannot
 * leak in), leaving it out inherits the shell's; the same for `url`, `token` and `configHome`
 * (XDG_CONFIG_HOME). stdin is ended with `input` when one is given, and left open otherwise. `url`
 * may be a function, read on each call, for a server started after the runner is made.
 * @example
 * const cli = makeCli({ url: () => server.url, token, project: "", cwd: persistTo, configHome: join(persistTo, "config") });
 * const set = await cli(["secrets", "set", "KEY", "--project", "b"], { token: b.token, input: "value\n" });
 */
export function makeCli({
  url,
  token,
  project,
  cwd,
  configHome,
  timeoutMs = 60_000,
  maxBuffer,
  input: defaultInput,
} = {}) {
  return function cli(
    args,
    {
      token: callToken = token,
      project: callProject = project,
      input = defaultInput,
      cwd: callCwd = cwd,
      env = {},
    } = {},
  ) {
    const named = Object.entries({
      PANTHEON_URL: typeof url === "function" ? url() : url,
      PANTHEON_TOKEN: callToken,
      PANTHEON_PROJECT: callProject,
      XDG_CONFIG_HOME: configHome,
    }).filter(([, value]) => value !== undefined);
    const options = {
      cwd: callCwd,
      env: { ...process.env, ...Object.fromEntries(named), ...env },
      timeout: timeoutMs,
      ...(maxBuffer ? { maxBuffer } : {}),
    };
    return new Promise((resolve) => {
      const child = execFile(process.execPath, [cliPath, ...args], options, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      });
      if (input !== undefined) child.stdin.end(input);
    });
  };
}

/**
 * Polls `read` (sync or async) every `every` ms until `ok` (truthiness by default) holds for what it
 * answered, and answers that value; at `ms` it has had its last look, and throws `timed out waiting
 * for <what>` with the last value read. A `read` that throws ends the wait with its error (wrap it to
 * keep polling through errors).
 * @example
 * const plan = await until("the plan", () => api(`/api/features/${id}/plan`), { ok: (r) => r.status === 200 });
 * await until("the socket to open", () => socket.opened, { ms: 5000, every: 20 });
 */
export async function until(what, read, { ok = Boolean, ms = 30_000, every = 250 } = {}) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() >= end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 900)}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
