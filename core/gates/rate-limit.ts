/** A token bucket as stored by the Durable Object (one row per agent + tool). */
export interface TokenBucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimit {
  capacity: number;
  refillPerSec: number;
}

/** The key of an agent's bucket for one tool. */
export function rateKey(agent: string, tool: string): string {
  return `${agent}:${tool}`;
}

/**
 * Takes one token if there is one. Pure: the caller stores the returned bucket. A missing bucket is full.
 * @example
 * const { allowed, bucket } = takeToken(stored, clock.now(), { capacity: 5, refillPerSec: 0.1 });
 */
export function takeToken(
  bucket: TokenBucket | undefined,
  now: number,
  limit: RateLimit,
): { allowed: boolean; bucket: TokenBucket } {
  const elapsedSec = bucket ? Math.max(0, now - bucket.updatedAt) / 1000 : 0;
  const available = bucket ? Math.min(limit.capacity, bucket.tokens + elapsedSec * limit.refillPerSec) : limit.capacity;
  if (available >= 1) return { allowed: true, bucket: { tokens: available - 1, updatedAt: now } };
  return { allowed: false, bucket: { tokens: available, updatedAt: now } };
}

/** Seconds until the next token, for the rejection message. */
export function secondsUntilToken(bucket: TokenBucket, limit: RateLimit): number {
  if (bucket.tokens >= 1 || limit.refillPerSec <= 0) return 0;
  return Math.ceil((1 - bucket.tokens) / limit.refillPerSec);
}
