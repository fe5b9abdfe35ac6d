/**
 * The sandbox runner's port: one compiled module runs in an isolate of its own, with no network but
 * what its host routes, no bindings, and nothing of the caller's but the tools and secrets the host
 * hands it (adapters/sandbox-worker-loader runs it over Cloudflare's Worker Loader).
 */

/** What one run may use. Each is enforced where the module runs, not trusted to it. */
export interface SandboxLimits {
  /** The platform's CPU limit of the isolate (Cloudflare enforces it; local workerd does not). */
  cpuMs: number;
  /** Wall time of one call, from the caller's side. */
  wallMs: number;
  /**
   * Loop iterations and function calls of one call, counted by the code the compiler adds: what stops
   * an endless loop where the platform's CPU limit is not enforced (local workerd), and everywhere else too.
   */
  steps: number;
  /** Bytes of the JSON result. */
  resultBytes: number;
  /**
   * Bytes one call may allocate, as a meter estimates them: the compiler charges each object, array
   * and `new`, each string built with `+` or a template and each spread, the harness each bulk
   * built-in (`Array(n)`, `push`, `concat`, `repeat`, typed arrays…), before they allocate. What bounds a
   * script that fills its heap where the isolate has no memory limit (local workerd ends the whole
   * process at its heap limit); on Cloudflare the platform's 128 MB per isolate holds too.
   */
  allocationBytes: number;
}

export const defaultSandboxLimits: SandboxLimits = {
  cpuMs: 1_000,
  wallMs: 10_000,
  steps: 50_000_000,
  resultBytes: 1024 * 1024,
  allocationBytes: 128 * 1024 * 1024,
};

/** A response the host's fetch gives the module: plain data, so it crosses the isolate boundary as is. */
export interface SandboxFetchResponse {
  status: number;
  headers: [string, string][];
  body: string;
}

/** What the module may reach, all through its host (the caller's isolate). */
export interface SandboxHost {
  /** The tools the module declared, by name. Anything else is refused before it reaches here. */
  tools: Record<string, (args: Record<string, unknown>) => Promise<unknown>>;
  /** The secrets the module declared that the caller holds, by name. */
  secrets: Record<string, string>;
  /** The caller's guarded fetch over the module's declared hosts; absent = no network at all. */
  fetch?: (
    url: string,
    init: { method: string; headers: [string, string][]; body?: string },
  ) => Promise<SandboxFetchResponse>;
}

export interface SandboxRequest {
  /** Names the code (its hash): runs of the same code may share a warm isolate. */
  codeId: string;
  /** The compiled module (core/sandbox compileScript): `export default async function (input, ctx)`. */
  code: string;
  input: unknown;
  host: SandboxHost;
  limits?: Partial<SandboxLimits>;
}

export type SandboxErrorKind = "script" | "steps" | "memory" | "timeout" | "result_too_large" | "unavailable";

export interface SandboxError {
  kind: SandboxErrorKind;
  /** The script's own message (or the limit it met), never the host's internals. */
  message: string;
  /** The line of the script's source the error was thrown at, when known. */
  line?: number;
}

export type SandboxResult = { ok: true; json: string } | { ok: false; error: SandboxError };

/** Runs one compiled module in isolation; never throws (an error is a result). */
export interface SandboxRunner {
  run(request: SandboxRequest): Promise<SandboxResult>;
}

/** "script error at line 12: boom": how a sandbox error reads in a tool result. */
export function describeSandboxError(error: SandboxError): string {
  return error.line === undefined ? error.message : `${error.message} (line ${error.line})`;
}
