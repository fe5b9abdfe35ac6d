import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent } from "../ports";
import { LlmError, isAbort, isLlmError } from "./llm-error";

export interface RetryEvent {
  provider: string;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: LlmError;
}

export interface ResilientLlmOptions {
  primary: LlmPort;
  /** Tried once the primary has used up its retries (or failed permanently), with its own retries. */
  fallback?: LlmPort;
  /** The model id to ask the fallback for; the request's model when absent. */
  fallbackModel?: string;
  /** Retries per port after the first attempt (default 3). */
  retries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Injected so tests never wait; defaults to a setTimeout sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Injected so jitter is deterministic in tests; defaults to Math.random. */
  random?: () => number;
  /** Per attempt: time to the whole answer (complete) or to the first event (stream). None when absent. */
  timeoutMs?: number;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * Wraps an LlmPort with bounded retries (exponential backoff, full jitter) for retryable errors and
 * timeouts, then one fallback port. A stream is retried only until its first event was emitted:
 * after that a retry would repeat text the caller already showed.
 * @example
 * const llm = makeResilientLlm({ primary: makeOpenAiLlm({ apiKey }), fallback: makeOfflineLlm(), fallbackModel: "offline" });
 * const reply = await llm.complete({ model: "gpt-4o-mini", messages });
 */
export function makeResilientLlm(options: ResilientLlmOptions): LlmPort {
  const { primary, fallback, fallbackModel } = options;
  const retries = Math.max(0, options.retries ?? 3);
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 4000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const timeoutMs = options.timeoutMs;

  const backoff = (attempt: number) =>
    Math.floor(Math.min(1, Math.max(0, random())) * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));

  /** Decides after a failed attempt: rethrow (as LlmError) or wait and go again. */
  async function afterFailure(port: LlmPort, error: unknown, attempt: number, signal?: AbortSignal): Promise<void> {
    const llmError = asLlmError(error, port.provider);
    if (isAbort(error, signal) || !llmError.retryable || attempt >= retries) throw llmError;
    const delayMs = backoff(attempt);
    options.onRetry?.({ provider: port.provider, attempt: attempt + 1, delayMs, error: llmError });
    await sleep(delayMs);
  }

  async function completeWith(port: LlmPort, request: LlmRequest): Promise<LlmResponse> {
    for (let attempt = 0; ; attempt++) {
      const deadline = makeDeadline(port.provider, timeoutMs, request.signal);
      try {
        return await deadline.race(port.complete({ ...request, signal: deadline.signal }));
      } catch (error) {
        await afterFailure(port, error, attempt, request.signal);
      } finally {
        deadline.dispose();
      }
    }
  }

  async function* streamWith(port: LlmPort, request: LlmRequest): AsyncGenerator<LlmStreamEvent> {
    for (let attempt = 0; ; attempt++) {
      const deadline = makeDeadline(port.provider, timeoutMs, request.signal);
      let emitted = false;
      try {
        const iterator = port.stream({ ...request, signal: deadline.signal })[Symbol.asyncIterator]();
        let first: IteratorResult<LlmStreamEvent>;
        try {
          first = await deadline.race(iterator.next());
        } catch (error) {
          void iterator.return?.()?.catch(() => undefined);
          throw error;
        }
        deadline.stopTimer();
        if (first.done) return;
        emitted = true;
        yield first.value;
        // yield* forwards a consumer's early return() to the port, which closes the HTTP stream.
        yield* { [Symbol.asyncIterator]: () => iterator };
        return;
      } catch (error) {
        if (emitted) throw asLlmError(error, port.provider);
        await afterFailure(port, error, attempt, request.signal);
      } finally {
        deadline.dispose();
      }
    }
  }

  const forFallback = (request: LlmRequest): LlmRequest =>
    fallbackModel ? { ...request, model: fallbackModel } : request;

  return {
    provider: primary.provider,
    async complete(request) {
      try {
        return await completeWith(primary, request);
      } catch (primaryError) {
        if (!fallback || isAbort(primaryError, request.signal)) throw primaryError;
        try {
          return await completeWith(fallback, forFallback(request));
        } catch (fallbackError) {
          throw bothFailed(asLlmError(primaryError, primary.provider), asLlmError(fallbackError, fallback.provider));
        }
      }
    },
    async *stream(request) {
      let emitted = false;
      try {
        for await (const event of streamWith(primary, request)) {
          emitted = true;
          yield event;
        }
        return;
      } catch (primaryError) {
        if (!fallback || emitted || isAbort(primaryError, request.signal)) throw primaryError;
        try {
          yield* streamWith(fallback, forFallback(request));
        } catch (fallbackError) {
          throw bothFailed(asLlmError(primaryError, primary.provider), asLlmError(fallbackError, fallback.provider));
        }
      }
    },
  };
}

function asLlmError(error: unknown, provider: string): LlmError {
  if (isLlmError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError({ provider, message: `${provider} failed: ${message}`, retryable: false, cause: error });
}

function bothFailed(primary: LlmError, last: LlmError): LlmError {
  return new LlmError({
    provider: last.provider,
    ...(last.status === undefined ? {} : { status: last.status }),
    retryable: last.retryable,
    message: `${last.message} (fallback after ${primary.provider} failed: ${primary.message})`,
    cause: last,
  });
}

interface Deadline {
  signal: AbortSignal | undefined;
  race<T>(promise: Promise<T>): Promise<T>;
  /** The attempt has answered in time; the caller's abort still reaches it. */
  stopTimer(): void;
  dispose(): void;
}

/**
 * One attempt's time limit. The attempt gets its own AbortSignal (linked to the caller's) so the SDK
 * cancels the HTTP request, and the race makes sure a port that ignores the signal still times out.
 */
function makeDeadline(provider: string, timeoutMs: number | undefined, outer: AbortSignal | undefined): Deadline {
  if (!timeoutMs)
    return { signal: outer, race: (promise) => promise, stopTimer: () => undefined, dispose: () => undefined };
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  if (outer?.aborted) controller.abort(outer.reason);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new LlmError({
        provider,
        message: `${provider} did not answer within ${timeoutMs} ms`,
        retryable: true,
      });
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  timedOut.catch(() => undefined);
  return {
    signal: controller.signal,
    race: (promise) => Promise.race([promise, timedOut]),
    stopTimer: () => {
      if (timer !== undefined) clearTimeout(timer);
    },
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    },
  };
}
