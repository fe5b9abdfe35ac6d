import { RpcTarget } from "cloudflare:workers";
import {
  defaultSandboxLimits,
  type SandboxHost,
  type SandboxLimits,
  type SandboxResult,
  type SandboxRunner,
} from "../../core/sandbox";
import { harnessModule } from "./harness";

/** What the sandbox reaches of its caller: exactly the host's tools, secrets and fetch, by RPC. */
class HostStub extends RpcTarget {
  readonly #host: SandboxHost;
  constructor(host: SandboxHost) {
    super();
    this.#host = host;
  }
  async tool(name: string, args: Record<string, unknown>): Promise<unknown> {
    const fn = Object.hasOwn(this.#host.tools, name) ? this.#host.tools[name] : undefined;
    if (!fn) throw new Error(`tool '${name}' is not declared by this script (its 'tools' list)`);
    return fn(args);
  }
  secret(name: string): string {
    const value = Object.hasOwn(this.#host.secrets, name) ? this.#host.secrets[name] : undefined;
    if (value === undefined)
      throw new Error(`secret '${name}' is not declared by this script or not set in the project`);
    return value;
  }
  async fetch(url: string, init: { method: string; headers: [string, string][]; body?: string }) {
    if (!this.#host.fetch) throw new TypeError("fetch refused: this script declares no hosts, so it has no network");
    return this.#host.fetch(url, init);
  }
}

/**
 * The part of the Worker Loader binding (`env.LOADER`, a `WorkerLoader`) this adapter uses, named here
 * so the CLI's and PWA's typechecks (which cannot see the Workers declarations) read it too.
 */
export interface WorkerLoaderSlice {
  get(name: string, code: () => WorkerCode): { getEntrypoint(): unknown };
}
interface WorkerCode {
  compatibilityDate: string;
  mainModule: string;
  modules: Record<string, string>;
  globalOutbound: null;
  env: Record<string, never>;
  limits: { cpuMs: number };
}

type HarnessReply = { retry: true } | SandboxResult;
interface Harness {
  run(
    input: unknown,
    host: HostStub,
    options: { steps: number; resultBytes: number; allocationBytes: number; hasNetwork: boolean },
  ): Promise<HarnessReply>;
}

/**
 * The sandbox runner over Cloudflare's Worker Loader (Dynamic Workers). Each script runs in an
 * isolate of its own, kept warm per code hash and replaced after any call that hit a limit or left
 * its built-ins or globals changed; `globalOutbound: null` takes the platform's network away, and the
 * only binding-like thing it holds is the host stub passed to each call.
 * @example
 * const sandbox = makeWorkerLoaderSandbox(env.LOADER);
 * await sandbox.run({ codeId, code, input: { a: 1 }, host: { tools: {}, secrets: {} } }); // { ok: true, json: "…" }
 */
export function makeWorkerLoaderSandbox(
  loader: WorkerLoaderSlice,
  options: { compatibilityDate?: string } = {},
): SandboxRunner {
  if (!loader) throw new Error("the Worker Loader binding (LOADER in wrangler.toml) is missing: script tools need it");
  const compatibilityDate = options.compatibilityDate ?? "2026-11-01";
  // Bumped for a code hash whose isolate must not serve another call (a limit hit, a change left behind).
  const generations = new Map<string, number>();
  const retire = (codeId: string) => generations.set(codeId, (generations.get(codeId) ?? 0) + 1);

  const isolateFor = (codeId: string, code: string, limits: SandboxLimits) =>
    loader.get(`script:${codeId}:${generations.get(codeId) ?? 0}`, () => ({
      compatibilityDate,
      mainModule: "harness.js",
      modules: { "harness.js": harnessModule, "script.js": code },
      globalOutbound: null,
      env: {},
      limits: { cpuMs: limits.cpuMs },
    }));

  async function once(
    codeId: string,
    code: string,
    input: unknown,
    host: SandboxHost,
    limits: SandboxLimits,
  ): Promise<HarnessReply> {
    const harness = isolateFor(codeId, code, limits).getEntrypoint() as unknown as Harness;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<HarnessReply>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({ ok: false, error: { kind: "timeout", message: `stopped after ${limits.wallMs} ms of wall time` } }),
        limits.wallMs,
      );
    });
    try {
      const reply = await Promise.race([
        harness.run(input, new HostStub(host), {
          steps: limits.steps,
          resultBytes: limits.resultBytes,
          allocationBytes: limits.allocationBytes,
          hasNetwork: host.fetch !== undefined,
        }),
        timeout,
      ]);
      return reply;
    } catch (error) {
      // The isolate itself ended (out of memory, the platform's CPU limit): this call fails, the next gets a new one.
      retire(codeId);
      const message = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        error: { kind: "script", message: `the script's isolate ended: ${message}` },
      } as SandboxResult;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async run(request) {
      const limits = { ...defaultSandboxLimits, ...request.limits };
      let reply = await once(request.codeId, request.code, request.input, request.host, limits);
      if ("retry" in reply) {
        // A change an earlier call left after it returned: this call runs in a fresh isolate.
        retire(request.codeId);
        reply = await once(request.codeId, request.code, request.input, request.host, limits);
        if ("retry" in reply)
          return { ok: false, error: { kind: "unavailable", message: "the sandbox could not start clean" } };
      }
      if (!reply.ok && reply.error.kind !== "script") retire(request.codeId);
      return reply;
    },
  };
}
