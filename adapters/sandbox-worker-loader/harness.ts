/**
 * The module every sandboxed script runs under (its main module; the script is `script.js` beside it).
 * It is the only code in the isolate besides the script: it counts the script's steps, routes `fetch`
 * to the host, caps the result, reports the script's line, and notices when a call has changed the
 * isolate's built-ins or globals so the caller starts a fresh isolate for the next call.
 * Written as a string: it runs in the Dynamic Worker, never in Pantheon's own isolate.
 */
export const harnessModule = String.raw`
import { WorkerEntrypoint } from "cloudflare:workers";

let steps = 0;
let limit = Infinity;
let exhausted = false;
let current = null;
Object.defineProperty(globalThis, "__pantheon_step", {
  value() {
    if (++steps > limit) {
      exhausted = true;
      throw new Error("stopped at the step limit: " + limit + " loop iterations and calls in one call");
    }
  },
  writable: false, configurable: false, enumerable: false,
});

const hostFetch = async (input, init) => {
  const request = new Request(input, init);
  if (!current || !current.hasNetwork) throw new TypeError("fetch refused: this script declares no hosts, so it has no network");
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
  const r = await current.host.fetch(request.url, { method: request.method, headers: [...request.headers], body });
  return new Response(r.body, { status: r.status, headers: r.headers });
};
Object.defineProperty(globalThis, "fetch", { value: hostFetch, writable: false, configurable: false });

// What a call could leave behind for the next: the built-ins' prototypes and the global object.
const watched = [globalThis];
for (const name of Object.getOwnPropertyNames(globalThis)) {
  const value = globalThis[name];
  if (typeof value === "function") {
    watched.push(value);
    if (value.prototype && typeof value.prototype === "object") watched.push(value.prototype);
  } else if (value && typeof value === "object" && (name === "JSON" || name === "Math" || name === "Reflect")) watched.push(value);
}
watched.push(Object.getPrototypeOf(async function () {}), Object.getPrototypeOf(function* () {}));
const shapeOf = (o) => {
  const out = [Object.getPrototypeOf(o), Object.isExtensible(o)];
  for (const key of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, key);
    out.push(key, d.value, d.get, d.set, d.writable, d.configurable);
  }
  return out;
};
const pristine = watched.map(shapeOf);
const tainted = () => watched.some((o, i) => {
  const now = shapeOf(o);
  const then = pristine[i];
  return now.length !== then.length || now.some((v, j) => !Object.is(v, then[j]));
});

const lineOf = (error) => {
  const m = /script\.js:(\d+):\d+/.exec(String(error && error.stack));
  return m ? Number(m[1]) : undefined;
};
const fail = (kind, message, line) => ({ ok: false, error: line === undefined ? { kind, message } : { kind, message, line } });

export default class Harness extends WorkerEntrypoint {
  async run(input, host, options) {
    // Checked as a call starts, not as one ends: this also sees a change a script left to run after
    // its call returned (a timer), and keeps the check off the answer's path (a warm call: ~0.4 ms).
    if (tainted()) return { retry: true };
    steps = 0;
    limit = options.steps;
    exhausted = false;
    current = { host, hasNetwork: options.hasNetwork };
    const ctx = Object.freeze({
      tool: (name, args) => host.tool(String(name), args ?? {}),
      secret: (name) => host.secret(String(name)),
    });
    let outcome;
    try {
      const script = await import("./script.js");
      const value = await script.default(input, ctx);
      if (exhausted) outcome = fail("steps", "stopped at the step limit: " + limit + " loop iterations and calls in one call");
      else {
        const json = JSON.stringify(value === undefined ? null : value) ?? "null";
        const bytes = json.length * 3 <= options.resultBytes ? json.length : new TextEncoder().encode(json).length;
        outcome = bytes > options.resultBytes
          ? fail("result_too_large", "the result is " + bytes + " bytes, over the limit of " + options.resultBytes + " bytes: return less (a summary, a page)")
          : { ok: true, json };
      }
    } catch (error) {
      const message = error instanceof Error ? error.name + ": " + error.message : "thrown: " + String(error);
      outcome = exhausted ? fail("steps", "stopped at the step limit: " + limit + " loop iterations and calls in one call", lineOf(error)) : fail("script", message, lineOf(error));
    } finally {
      current = null;
    }
    return outcome;
  }
}
`;
