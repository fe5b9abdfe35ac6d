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

// The allocation meter (SandboxLimits.allocationBytes): the compiler charges literals, spreads and
// strings built by + or a template; the bulk built-ins below charge what they are about to make.
// Once over, every charge throws again, so a script that catches the error cannot go on allocating.
let allocated = 0;
let allocationLimit = Infinity;
let overAllocated = false;
const charge = (bytes) => {
  allocated += bytes;
  if (allocated > allocationLimit) {
    overAllocated = true;
    throw new RangeError(memoryMessage());
  }
};
const memoryMessage = () => "stopped at the memory limit: the call allocated over " + Math.round(allocationLimit / 1048576) + " MiB";
const lengthOf = (x) => (x != null && typeof x.length === "number" ? x.length : x != null && typeof x.size === "number" ? x.size : 0);
const hook = (name, value) => Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
hook("__pantheon_alloc", (bytes, value) => (charge(bytes), value));
hook("__pantheon_spread", (value) => (charge(8 * lengthOf(value)), value));
// A string made by + is a 32-byte pair of its parts until read; one over a million characters is
// charged by its length, so doubling a string toward V8's longest one stops early.
hook("__pantheon_str", (value) => (typeof value === "string" && charge(value.length > 1048576 ? value.length : 32), value));

const patch = (owner, name, before) => {
  const original = owner[name];
  const d = Object.getOwnPropertyDescriptor(owner, name);
  Object.defineProperty(owner, name, { ...d, value: { [name](...args) { before(this, args); return Reflect.apply(original, this, args); } }[name] });
};
const arrayProto = Array.prototype;
patch(arrayProto, "push", (_, items) => charge(8 * items.length));
patch(arrayProto, "unshift", (_, items) => charge(8 * items.length));
patch(arrayProto, "concat", (self, items) => charge(8 * items.reduce((n, x) => n + (Array.isArray(x) ? x.length : 1), lengthOf(self))));
patch(arrayProto, "splice", (_, args) => charge(8 * Math.max(0, args.length - 2)));
for (const name of ["slice", "map", "filter", "flat", "flatMap", "toSorted", "toReversed", "toSpliced", "with"])
  if (arrayProto[name]) patch(arrayProto, name, (self) => charge(8 * lengthOf(self)));
patch(Array, "from", (_, [items]) => charge(8 * lengthOf(items)));
patch(String.prototype, "repeat", (self, [count]) => charge(2 * String(self).length * Math.max(0, Number(count) || 0)));
patch(String.prototype, "padStart", (_, [length]) => charge(2 * Math.max(0, Number(length) || 0)));
patch(String.prototype, "padEnd", (_, [length]) => charge(2 * Math.max(0, Number(length) || 0)));
patch(Map.prototype, "set", () => charge(48));
patch(Set.prototype, "add", () => charge(48));
patch(JSON, "parse", (_, [text]) => charge(4 * String(text).length));
// Constructors that take a size: Array(n), ArrayBuffer(n) and the typed arrays, charged before they make it.
const sized = (name, bytesOf) => {
  const original = globalThis[name];
  const guarded = new Proxy(original, {
    construct(target, args, newTarget) { charge(bytesOf(args)); return Reflect.construct(target, args, newTarget === guarded ? target : newTarget); },
    apply(target, self, args) { charge(bytesOf(args)); return Reflect.apply(target, self, args); },
  });
  Object.defineProperty(globalThis, name, { ...Object.getOwnPropertyDescriptor(globalThis, name), value: guarded });
};
sized("Array", (args) => (args.length === 1 && typeof args[0] === "number" ? 8 * args[0] : 8 * args.length));
sized("ArrayBuffer", ([n]) => (typeof n === "number" ? n : 0));
for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
  const per = globalThis[name].BYTES_PER_ELEMENT;
  sized(name, ([x]) => per * (typeof x === "number" ? x : x instanceof ArrayBuffer ? 0 : lengthOf(x)));
}

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
    allocated = 0;
    allocationLimit = options.allocationBytes;
    overAllocated = false;
    current = { host, hasNetwork: options.hasNetwork };
    const ctx = Object.freeze({
      tool: (name, args) => host.tool(String(name), args ?? {}),
      secret: (name) => host.secret(String(name)),
    });
    let outcome;
    try {
      const script = await import("./script.js");
      const value = await script.default(input, ctx);
      if (overAllocated) outcome = fail("memory", memoryMessage());
      else if (exhausted) outcome = fail("steps", "stopped at the step limit: " + limit + " loop iterations and calls in one call");
      else {
        const json = JSON.stringify(value === undefined ? null : value) ?? "null";
        const bytes = json.length * 3 <= options.resultBytes ? json.length : new TextEncoder().encode(json).length;
        outcome = bytes > options.resultBytes
          ? fail("result_too_large", "the result is " + bytes + " bytes, over the limit of " + options.resultBytes + " bytes: return less (a summary, a page)")
          : { ok: true, json };
      }
    } catch (error) {
      const message = error instanceof Error ? error.name + ": " + error.message : "thrown: " + String(error);
      outcome = overAllocated ? fail("memory", memoryMessage(), lineOf(error)) : exhausted ? fail("steps", "stopped at the step limit: " + limit + " loop iterations and calls in one call", lineOf(error)) : fail("script", message, lineOf(error));
    } finally {
      current = null;
      // The harness's own work between calls is not the script's.
      allocationLimit = Infinity;
    }
    return outcome;
  }
}
`;
