import { encryptPush } from "./encrypt";
import { type VapidKey, vapidAuthorization, vapidLifetimeSeconds } from "./vapid";

/** A browser's push subscription as the registry keeps it. */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** What became of one push: taken, gone for good (RFC 8030: 404 or 410, the subscription is removed), or not taken now. */
export type PushResult = { kind: "sent" } | { kind: "gone"; status: number } | { kind: "failed"; status: number };

export interface WebPushSender {
  send(
    target: PushTarget,
    payload: string,
    options: { ttlSeconds: number; topic?: string; urgency?: "normal" | "high" },
  ): Promise<PushResult>;
}

/**
 * Sends Web Push messages (RFC 8030) with an `aes128gcm` body (RFC 8291) and VAPID (RFC 8292).
 * `fetch` is the outbound guard's (the caller checked the endpoint is a push service).
 * @example
 * const sender = makeWebPushSender({ key, subject: "mailto:ops@example.com", fetch, now: Date.now });
 * await sender.send(subscription, JSON.stringify(notice), { ttlSeconds: 86400, topic: notice.tag });
 */
export function makeWebPushSender(deps: {
  key: VapidKey;
  subject: string;
  fetch: typeof fetch;
  now: () => number;
}): WebPushSender {
  // One signature per push service origin, reused while it has more than an hour to run: ten devices
  // on one push service cost one ECDSA signature, not ten.
  const signed = new Map<string, { header: Promise<string>; until: number }>();
  function authorization(endpoint: string): Promise<string> {
    const origin = new URL(endpoint).origin;
    const now = deps.now();
    const kept = signed.get(origin);
    if (kept && kept.until > now) return kept.header;
    const header = vapidAuthorization(endpoint, deps.key, deps.subject, now);
    signed.set(origin, { header, until: now + (vapidLifetimeSeconds - 3600) * 1000 });
    return header;
  }
  return {
    async send(target, payload, options) {
      const body = await encryptPush(new TextEncoder().encode(payload), target);
      const res = await deps.fetch(target.endpoint, {
        method: "POST",
        headers: {
          authorization: await authorization(target.endpoint),
          "content-encoding": "aes128gcm",
          "content-type": "application/octet-stream",
          ttl: String(options.ttlSeconds),
          urgency: options.urgency ?? "normal",
          // RFC 8030 §5.4: a newer message of the same topic replaces one still waiting on the device.
          ...(options.topic ? { topic: options.topic } : {}),
        },
        body,
      });
      await res.body?.cancel();
      if (res.status === 404 || res.status === 410) return { kind: "gone", status: res.status };
      return res.ok ? { kind: "sent" } : { kind: "failed", status: res.status };
    },
  };
}
