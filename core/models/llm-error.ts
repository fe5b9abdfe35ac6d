/**
 * The one error every LlmPort adapter throws. Guards check `name`, not `instanceof`, so they survive
 * duplicate module copies. Messages carry the provider's own error text and never a credential.
 */
export class LlmError extends Error {
  override readonly name = "LlmError";
  /** The PantheonError code the worker maps this to (502 for a caller). */
  readonly code = "model_failed";
  /** "openai" | "anthropic" | "workers-ai" | "offline" | ... */
  readonly provider: string;
  /** The provider's HTTP status, when there was a response. */
  readonly status: number | undefined;
  /** Trying again later may succeed: rate limits, timeouts, overload, connection failures. */
  readonly retryable: boolean;

  constructor(options: { provider: string; message: string; status?: number; retryable: boolean; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable;
  }
}

export function isLlmError(error: unknown): error is LlmError {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "LlmError";
}

/** 408 timeout, 409 conflict/lock, 429 rate limit and every 5xx are worth another try; other 4xx are not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Removes every occurrence of a secret (and of its longer prefixes, since providers echo keys
 * truncated, e.g. "sk-abc…xyz") from text bound for logs or users.
 */
export function scrubSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  let out = text.split(secret).join("[redacted]");
  if (secret.length >= 12) {
    // Keys echoed partially ("Incorrect API key provided: sk-abc1****wxyz") still leak a prefix.
    const prefix = secret.slice(0, Math.min(12, secret.length - 4));
    out = out.split(prefix).join("[redacted]");
  }
  return out;
}

/** Whether an error is the caller's own abort (never retried, never sent to a fallback). */
export function isAbort(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
  return name === "AbortError" || name === "APIUserAbortError";
}
