import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent, ModelHop } from "../ports";
import {
  admit,
  closedBreaker,
  defaultBreakerPolicy,
  onFailure,
  onSuccess,
  type BreakerPolicy,
  type BreakerRecord,
} from "./breaker";
import { LlmError, isAbort, isLlmError } from "./llm-error";

/** One model of a cascade, ready to call: its provider's port (with its own retries) and the model id to ask for. */
export interface CascadeStep {
  provider: string;
  model: string;
  /** Absent when the model cannot be called here: the step is skipped with `unavailable` as its reason. */
  port?: LlmPort;
  /** Why the port is absent (no key, a provider the project does not name…). */
  unavailable?: string;
}

/** Where each provider's breaker record lives: the agent's storage, so an eviction keeps it. */
export interface BreakerStore {
  get(provider: string): BreakerRecord | undefined;
  set(provider: string, record: BreakerRecord): void;
}

export interface CascadeOptions {
  steps: CascadeStep[];
  breakers?: BreakerStore;
  policy?: BreakerPolicy;
  now: () => number;
}

/**
 * What kind of failure an error is, for the trace: `rate_limited` (429), `auth` (401/403),
 * `timeout`, `server_error` (5xx), `connection` (no answer), `rejected` (another 4xx).
 */
export function failureKindOf(error: LlmError): string {
  const { status } = error;
  if (status === 429) return "rate_limited";
  if (status === 401 || status === 403) return "auth";
  if (status !== undefined && status >= 500) return "server_error";
  if (status !== undefined) return "rejected";
  if (/did not answer within/.test(error.message)) return "timeout";
  return error.retryable ? "connection" : "error";
}

/**
 * A cascade of models: each step is tried in order until one answers. A step whose provider's
 * circuit breaker is open is passed over without a call; a failed call counts against its
 * provider's breaker and moves to the next step. Each move is reported (`request.onHop`) with its
 * reason, so the run's trace shows how the answer was reached. A success closes the breaker.
 * The caller's abort ends the cascade at once (never a hop).
 * @example
 * const llm = makeCascadeLlm({ steps: [{ provider: "groq", model: "llama", port: groq }, { provider: "openai", model: "gpt-4o-mini", port: openai }], breakers, now: Date.now });
 * await llm.complete({ model: "ignored: each step asks for its own", messages, onHop: (hop) => trace(hop) });
 */
export function makeCascadeLlm(options: CascadeOptions): LlmPort {
  const policy = options.policy ?? defaultBreakerPolicy;
  const { steps, breakers, now } = options;
  const recordOf = (provider: string) => breakers?.get(provider) ?? closedBreaker;
  const store = (provider: string, before: BreakerRecord, after: BreakerRecord) => {
    if (after !== before) breakers?.set(provider, after);
  };

  /** Runs `attempt` down the cascade; `started` says a stream emitted (then no hop is possible). */
  async function* walk<T>(
    request: LlmRequest,
    attempt: (port: LlmPort, request: LlmRequest) => AsyncGenerator<T, void>,
  ): AsyncGenerator<T, void> {
    const failures: string[] = [];
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index]!;
      const next = steps[index + 1];
      const hop = (reason: ModelHop["reason"], message: string, kind?: string) => {
        failures.push(`${step.provider}/${step.model}: ${message}`);
        request.onHop?.({
          from: { provider: step.provider, model: step.model },
          ...(next ? { to: { provider: next.provider, model: next.model } } : {}),
          reason,
          ...(kind ? { kind } : {}),
          message,
        });
      };
      if (!step.port) {
        hop("unavailable", step.unavailable ?? "not available here");
        continue;
      }
      const before = recordOf(step.provider);
      const admission = admit(before, now(), policy);
      if (!admission.allow) {
        hop("breaker_open", admission.reason);
        continue;
      }
      if (admission.next) store(step.provider, before, admission.next);
      const current = admission.next ?? before;
      let emitted = false;
      try {
        for await (const item of attempt(step.port, { ...request, model: step.model })) {
          emitted = true;
          yield item;
        }
        store(step.provider, current, onSuccess(current));
        return;
      } catch (error) {
        if (isAbort(error, request.signal)) throw error;
        const llmError = isLlmError(error)
          ? error
          : new LlmError({
              provider: step.provider,
              message: error instanceof Error ? error.message : String(error),
              retryable: false,
              cause: error,
            });
        store(step.provider, current, onFailure(current, now(), llmError.message, policy));
        // A stream that showed text cannot be taken back: the failure is the caller's.
        if (emitted) throw llmError;
        hop("error", llmError.message, failureKindOf(llmError));
        if (!next) throw exhausted(failures, llmError);
      }
    }
    throw exhausted(failures);
  }

  return {
    provider: steps[0]?.provider ?? "none",
    async complete(request: LlmRequest): Promise<LlmResponse> {
      let answer: LlmResponse | undefined;
      for await (const response of walk(request, async function* (port, req) {
        yield await port.complete(req);
      }))
        answer = response;
      return answer!;
    },
    stream(request: LlmRequest): AsyncIterable<LlmStreamEvent> {
      return walk(request, async function* (port, req) {
        yield* port.stream(req);
      });
    },
  };
}

/** Every model of the cascade failed or was passed over: one error naming each and why. */
function exhausted(failures: string[], last?: LlmError): LlmError {
  return new LlmError({
    provider: last?.provider ?? "cascade",
    ...(last?.status === undefined ? {} : { status: last.status }),
    retryable: last?.retryable ?? true,
    message: `every model of the cascade failed: ${failures.join("; ")}`,
    ...(last ? { cause: last } : {}),
  });
}
