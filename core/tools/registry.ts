import type { FieldIssue } from "../errors";
import { makeToolNameCodec } from "./names";
import { redactSecrets, type SecretValues } from "./secrets";
import type { ToolSpec } from "./tool-spec";
import { truncateToBytes } from "./truncate";
import { describeIssues, validateArguments } from "./validate";
import { ownValue } from "../reserved-names";

export interface ToolCallContext {
  /** Aborted on timeout or when the caller gives up; implementations pass it to fetch. */
  signal: AbortSignal;
  /** Secret values by name, for this call only. */
  secrets: SecretValues;
  /** Stable for one proposed call, across retries and restarts: HTTP tools send it as `Idempotency-Key`. */
  idempotencyKey?: string;
  /** The run the call belongs to (a tool that records who worked on something names its session). */
  run?: { id: string; sessionId: string };
}

/** The code behind a tool. A non-string result is sent to the model as JSON. */
export type ToolImplementation = (args: Record<string, unknown>, ctx: ToolCallContext) => Promise<unknown>;

/** A built-in tool: its declaration and its code, made together by a factory. */
export interface BuiltinTool {
  spec: ToolSpec;
  implementation: ToolImplementation;
}

export type ToolErrorCode = "unknown_tool" | "not_implemented" | "invalid_arguments" | "timeout" | "aborted" | "failed";

export interface ToolError {
  code: ToolErrorCode;
  message: string;
  issues?: FieldIssue[];
}

export type ToolOutcome = { ok: true; output: string; truncated: boolean } | { ok: false; error: ToolError };

export interface InvokeOptions {
  signal?: AbortSignal;
  /** Overrides the spec's `timeoutMs` and the registry default. */
  timeoutMs?: number;
  secrets?: SecretValues;
  /** The call's stable id (run and call), passed to the implementation. */
  idempotencyKey?: string;
  /** The run the call belongs to, passed to the implementation. */
  run?: { id: string; sessionId: string };
}

export interface ToolRegistry {
  list(): ToolSpec[];
  /** By declared name or by provider name (`clock__now`). */
  get(name: string): ToolSpec | undefined;
  /** Validates, runs under a time limit, redacts secrets and truncates; never throws. */
  invoke(name: string, args: Record<string, unknown>, options?: InvokeOptions): Promise<ToolOutcome>;
}

export interface ToolRegistryOptions {
  /** Time limit when neither the call nor the spec gives one. Default 15 s. */
  defaultTimeoutMs?: number;
  /** Byte budget of one result. Default 16 KiB. */
  maxOutputBytes?: number;
}

class ToolTimeout extends Error {
  override readonly name = "ToolTimeout";
}

/**
 * One agent's tools: their declarations and the code behind them.
 * @example
 * const clock = makeClockTool(systemClock);
 * const tools = makeToolRegistry([clock.spec], { [clock.spec.name]: clock.implementation });
 * await tools.invoke("clock.now", {}, { timeoutMs: 1000 }); // { ok: true, output: "2025-…", truncated: false }
 */
export function makeToolRegistry(
  specs: readonly ToolSpec[],
  implementations: Readonly<Record<string, ToolImplementation>>,
  options: ToolRegistryOptions = {},
): ToolRegistry {
  const codec = makeToolNameCodec(specs);
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 15_000;
  const maxOutputBytes = options.maxOutputBytes ?? 16 * 1024;
  const get = (name: string) => {
    const declared = codec.decode(name);
    return declared === undefined ? undefined : byName.get(declared);
  };

  async function invoke(
    name: string,
    args: Record<string, unknown>,
    invokeOptions: InvokeOptions = {},
  ): Promise<ToolOutcome> {
    const spec = get(name);
    if (!spec)
      return { ok: false, error: { code: "unknown_tool", message: `tool '${name}' is not declared for this agent` } };
    const implementation = ownValue(implementations, spec.name);
    if (!implementation)
      return {
        ok: false,
        error: { code: "not_implemented", message: `tool '${spec.name}' has no implementation here` },
      };
    const check = validateArguments(spec.parameters, args);
    if (!check.valid)
      return {
        ok: false,
        error: {
          code: "invalid_arguments",
          message: `invalid arguments for '${spec.name}': ${describeIssues(check.issues)}`,
          issues: check.issues,
        },
      };

    const secrets = invokeOptions.secrets ?? {};
    const secretValues = Object.values(secrets);
    const timeoutMs = invokeOptions.timeoutMs ?? spec.timeoutMs ?? defaultTimeoutMs;
    const controller = new AbortController();
    const outer = invokeOptions.signal;
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted)
      return {
        ok: false,
        error: { code: "aborted", message: `call of '${spec.name}' was cancelled before it started` },
      };
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Racing matters: an implementation that ignores its signal must not hold the run past its limit.
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const timeout = new ToolTimeout(`tool '${spec.name}' timed out after ${timeoutMs} ms`);
        controller.abort(timeout);
        reject(timeout);
      }, timeoutMs);
    });
    const aborted = new Promise<never>((_, reject) =>
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }),
    );
    try {
      const result = await Promise.race([
        implementation(args, {
          signal: controller.signal,
          secrets,
          ...(invokeOptions.idempotencyKey ? { idempotencyKey: invokeOptions.idempotencyKey } : {}),
          ...(invokeOptions.run ? { run: invokeOptions.run } : {}),
        }),
        limit,
        aborted,
      ]);
      const text = typeof result === "string" ? result : (JSON.stringify(result) ?? "");
      const cut = truncateToBytes(redactSecrets(text, secretValues), maxOutputBytes);
      return { ok: true, output: cut.text, truncated: cut.truncated };
    } catch (error) {
      if (error instanceof ToolTimeout) return { ok: false, error: { code: "timeout", message: error.message } };
      if (outer?.aborted)
        return { ok: false, error: { code: "aborted", message: `call of '${spec.name}' was cancelled` } };
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: { code: "failed", message: redactSecrets(message, secretValues) } };
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
      limit.catch(() => undefined);
      aborted.catch(() => undefined);
    }
  }

  return { list: () => [...specs], get, invoke };
}

/** Splits built-in tools into the two arguments of `makeToolRegistry`. */
export function toolsOf(tools: readonly BuiltinTool[]): {
  specs: ToolSpec[];
  implementations: Record<string, ToolImplementation>;
} {
  return {
    specs: tools.map((tool) => tool.spec),
    implementations: Object.fromEntries(tools.map((tool) => [tool.spec.name, tool.implementation])),
  };
}
