import type { LlmPort, LlmRequest, LlmResponse } from "../../../core/ports";
import {
  hasCaps,
  QuotaExceededError,
  spendOf,
  type ProjectQuota,
  type QuotaLimits,
  type QuotaRefusal,
} from "../../../core/quotas";
import type { QuotaKeeper } from "./keeper";

const isPromise = <T>(value: unknown): value is Promise<T> =>
  typeof (value as { then?: unknown } | null)?.then === "function";

/**
 * The agent's model port with its daily caps: before every call (each step of a run, not once per
 * run) the caps are checked, and a call past one is not made (QuotaExceededError, which the run
 * driver turns into the run's `quota_exceeded`); after it, what it spent is counted, priced by the
 * model that answered.
 * @example
 * const llm = withQuota(llmForProfile(profile, env), keeper, { agent: capsOf(limits), project: profile.projectQuota });
 */
export function withQuota(
  llm: LlmPort,
  keeper: QuotaKeeper,
  caps: { agent: QuotaLimits; project?: ProjectQuota },
): LlmPort {
  const capped = hasCaps(caps.agent) || hasCaps(caps.project?.limits);
  const counted = (response: LlmResponse): LlmResponse => {
    keeper.record(spendOf(response.model, response.usage), capped);
    return response;
  };
  const failed = (error: unknown): never => {
    keeper.failed();
    throw error;
  };
  const refuse = (refusal: QuotaRefusal) => new QuotaExceededError(refusal);

  function admitted(request: LlmRequest): Promise<void> | QuotaExceededError | null {
    const verdict = keeper.admit(caps.agent, caps.project);
    if (!isPromise<QuotaRefusal | null>(verdict)) return verdict ? refuse(verdict) : null;
    // The registry is asked for a lease: a starting run's held writes (its request) go out first, so
    // an eviction during this wait cannot lose the person's message (runs/held-writes.ts).
    request.onSent?.();
    return verdict.then((refusal) => {
      if (refusal) throw refuse(refusal);
    });
  }

  return {
    provider: llm.provider,
    complete(request) {
      const admit = admitted(request);
      if (admit === null) return llm.complete(request).then(counted, failed);
      if (admit instanceof QuotaExceededError) return Promise.reject(admit);
      return admit.then(() => llm.complete(request).then(counted, failed));
    },
    async *stream(request) {
      const admit = admitted(request);
      if (admit instanceof QuotaExceededError) throw admit;
      if (admit) await admit;
      let done = false;
      try {
        for await (const event of llm.stream(request)) {
          if (event.type === "done") {
            done = true;
            counted(event.response);
          }
          yield event;
        }
      } finally {
        if (!done) keeper.failed();
      }
    },
  };
}
