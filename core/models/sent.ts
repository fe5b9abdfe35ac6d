import type { LlmRequest } from "../ports";

/**
 * How a request's `onSent` reaches the transport through a provider SDK: it rides in the SDK's
 * per-request `fetchOptions` (copied into the `RequestInit` the SDK hands its `fetch`) under a
 * symbol, which `fetch` itself ignores.
 */
const onSentKey = Symbol("pantheon.onSent");

type Transport = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The SDK client's `fetch`: calls `transport`, then the request's `onSent` (the request has left). */
export function reportingFetch(transport: Transport): Transport {
  return (input, init) => {
    const response = transport(input, init);
    (init as { [onSentKey]?: () => void } | undefined)?.[onSentKey]?.();
    return response;
  };
}

/** The per-request SDK options that carry `signal` and `onSent` to `reportingFetch`. */
export function sdkRequestOptions(request: Pick<LlmRequest, "signal" | "onSent">): {
  signal?: AbortSignal;
  fetchOptions?: Record<string, never>;
} {
  return {
    ...(request.signal ? { signal: request.signal } : {}),
    // Typed as no options at all: the symbol is invisible to the SDK's types and to fetch.
    ...(request.onSent ? { fetchOptions: { [onSentKey]: request.onSent } as unknown as Record<string, never> } : {}),
  };
}
