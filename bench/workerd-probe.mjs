// What a server benchmark can learn from the `wrangler dev` it runs against, without changing it:
// the CPU its workerd processes use (Linux /proc), a CPU profile of the worker and exact call counts
// of its functions (V8's inspector, through wrangler's --inspector-port), attributed to source files
// with the bundle's source map. Not a *.bench.mjs file, so bench/run.mjs does not list it as a module.
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { SourceMap } from "node:module";
import { join } from "node:path";

const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
const cmdline = (pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux

/** Milliseconds of CPU (user + system) a process has used so far. */
export const cpuMs = (pid) => {
  const fields = stat(pid);
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
};

/** The pid that listens on a loopback TCP port (from /proc/net/tcp and every process's open sockets). */
function listener(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const row = readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hex}`) && f[3] === "0A");
  if (!row) return null;
  const socket = `socket:[${row[9]}]`;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`))
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === socket) return Number(pid);
    } catch {}
  }
  return null;
}

/**
 * The processes behind a local `wrangler dev`: the workerd that runs the worker and its Durable
 * Objects (`worker`), the workerd in front of it that answers the port (`proxy`), wrangler's node
 * process (`wrangler`), and its inspector port. Null where /proc does not tell (not Linux).
 * @example
 * const p = findWorkerd("http://127.0.0.1:8787"); const before = cpuMs(p.worker);
 */
export function findWorkerd(url) {
  try {
    const proxy = listener(Number(new URL(url).port));
    if (!proxy) return null;
    const wrangler = Number(stat(proxy)[1]);
    const siblings = readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d) && Number(d) !== proxy)
      .map(Number)
      .filter((pid) => {
        try {
          return Number(stat(pid)[1]) === wrangler && cmdline(pid)[0].endsWith("workerd");
        } catch {
          return false;
        }
      });
    const args = cmdline(wrangler);
    const inspector = Number(args[args.indexOf("--inspector-port") + 1]) || null;
    return siblings.length === 1 ? { worker: siblings[0], proxy, wrangler, inspector } : null;
  } catch {
    return null;
  }
}

/** CPU of each process now; `since(before)` gives the milliseconds used in between. */
export function cpuSnapshot(p) {
  const now = { worker: cpuMs(p.worker), proxy: cpuMs(p.proxy), wrangler: cpuMs(p.wrangler), at: performance.now() };
  return {
    ...now,
    since: (b) => ({
      worker: now.worker - b.worker,
      proxy: now.proxy - b.proxy,
      wrangler: now.wrangler - b.wrangler,
      wallMs: now.at - b.at,
    }),
  };
}

/** The worker's bundle and source map as wrangler dev last wrote them (the newest .wrangler/tmp/dev-*). */
export function bundle(root) {
  try {
    const tmp = join(root, ".wrangler/tmp");
    const dirs = readdirSync(tmp)
      .filter((d) => d.startsWith("dev-"))
      .map((d) => join(tmp, d))
      .filter((d) => {
        try {
          return statSync(join(d, "index.js.map")).isFile();
        } catch {
          return false;
        }
      })
      .sort((a, b) => statSync(join(b, "index.js")).mtimeMs - statSync(join(a, "index.js")).mtimeMs);
    if (!dirs[0]) return null;
    return {
      source: readFileSync(join(dirs[0], "index.js"), "utf8"),
      map: new SourceMap(JSON.parse(readFileSync(join(dirs[0], "index.js.map"), "utf8"))),
    };
  } catch {
    return null;
  }
}

/** Where a position of the bundle comes from: a repository path (node_modules shortened), or null. */
function origin(b, line, column) {
  const entry = b.map.findEntry(line, column);
  if (!entry?.originalSource) return null;
  const path = entry.originalSource.replace(/\\/g, "/");
  const nm = path.lastIndexOf("node_modules/");
  return nm >= 0 ? path.slice(nm) : path.replace(/^(\.\.\/)+/, "");
}

/**
 * A Chrome DevTools Protocol session with the worker (wrangler's inspector proxy wants an Origin).
 * @example
 * const session = await inspect(p.inspector); const profile = await session.profile(() => work()); session.close();
 */
export async function inspect(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  // Node's WebSocket (undici) takes headers beside the protocols.
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`the inspector on port ${port} refused the connection`)), {
      once: true,
    });
  });
  let id = 0;
  const waiting = new Map();
  const contexts = [];
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    if (message.method === "Runtime.executionContextCreated") contexts.push(message.params.context.id);
    if (message.id && waiting.has(message.id)) {
      waiting.get(message.id)(message);
      waiting.delete(message.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      waiting.set(n, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  return {
    /** A sampling CPU profile of the worker while `work` runs. */
    async profile(work, intervalUs = 250) {
      await send("Profiler.enable");
      await send("Profiler.setSamplingInterval", { interval: intervalUs });
      await send("Profiler.start");
      let profile;
      try {
        await work();
      } finally {
        ({ profile } = await send("Profiler.stop"));
      }
      return profile;
    },
    /**
     * Exact calls of the methods named `names` defined in files under `prefix`, while `work` runs: a
     * conditional breakpoint on each that counts and never pauses (workerd's inspector serves CPU
     * profiles but not V8's precise coverage). Slows the worker; never time what runs under it.
     */
    async callCounts(root, prefix, names, work) {
      const b = bundle(root);
      if (!b) throw new Error("no bundle source map under .wrangler/tmp");
      const lineStarts = [0];
      for (let i = 0; i < b.source.length; i++) if (b.source.charCodeAt(i) === 10) lineStarts.push(i + 1);
      const position = (offset) => {
        let line = 0;
        while (line + 1 < lineStarts.length && lineStarts[line + 1] <= offset) line++;
        return [line, offset - lineStarts[line]];
      };
      await send("Runtime.enable");
      await send("Debugger.enable");
      const evaluate = async (expression) => {
        if (!contexts.length) throw new Error("the worker announced no execution context");
        const { result, exceptionDetails } = await send("Runtime.evaluate", {
          expression,
          contextId: contexts[0],
          returnByValue: true,
        });
        if (exceptionDetails) throw new Error(`evaluate: ${exceptionDetails.text}`);
        return result.value;
      };
      const ids = [];
      try {
        for (const name of names) {
          for (const m of b.source.matchAll(new RegExp(`[{};,\\s]${name}\\([\\w$,]*\\)\\{`, "g"))) {
            const [line, column] = position(m.index + m[0].length);
            if (!origin(b, ...position(m.index + 1))?.startsWith(prefix)) continue;
            const condition = `((globalThis.__benchCalls ??= {})[${JSON.stringify(name)}] = (globalThis.__benchCalls[${JSON.stringify(name)}] ?? 0) + 1, false)`;
            ids.push(
              (
                await send("Debugger.setBreakpointByUrl", {
                  urlRegex: "index\\.js$",
                  lineNumber: line,
                  columnNumber: column,
                  condition,
                })
              ).breakpointId,
            );
          }
        }
        await evaluate("globalThis.__benchCalls = {}");
        await work();
        return JSON.parse(await evaluate("JSON.stringify(globalThis.__benchCalls ?? {})"));
      } finally {
        for (const id of ids) await send("Debugger.removeBreakpoint", { breakpointId: id }).catch(() => {});
        await send("Debugger.disable").catch(() => {});
      }
    },
    close: () => ws.close(),
  };
}

/**
 * A profile's samples by source: the share under any frame of each `groups` path prefix (a sample
 * counts once per group), and the top files by self time. `idle` is the share the worker's thread waited.
 */
export function attributeProfile(profile, root, groups) {
  const b = bundle(root);
  if (!b) return null;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fileOf = new Map();
  const file = (n) => {
    if (!fileOf.has(n.id)) {
      const f = n.callFrame;
      fileOf.set(
        n.id,
        f.url.endsWith("index.js") ? origin(b, f.lineNumber, f.columnNumber) : `(${f.functionName || "native"})`,
      );
    }
    return fileOf.get(n.id);
  };
  const total = profile.samples.length;
  const inGroup = Object.fromEntries(Object.keys(groups).map((g) => [g, 0]));
  const self = new Map();
  let idle = 0;
  for (const sample of profile.samples) {
    const leaf = nodes.get(sample);
    if (leaf.callFrame.functionName === "(idle)") idle += 1;
    const own = file(leaf) ?? "?";
    self.set(own, (self.get(own) ?? 0) + 1);
    const hit = new Set();
    for (let id = sample; id !== undefined; id = parent.get(id)) {
      const path = file(nodes.get(id));
      if (!path) continue;
      for (const [g, prefixes] of Object.entries(groups)) if (prefixes.some((p) => path.startsWith(p))) hit.add(g);
    }
    for (const g of hit) inGroup[g] += 1;
  }
  const share = (n) => n / total;
  return {
    samples: total,
    idle: share(idle),
    groups: Object.fromEntries(Object.entries(inGroup).map(([g, n]) => [g, share(n)])),
    topFiles: [...self]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 8)
      .map(([path, n]) => ({ path, share: share(n) })),
  };
}
