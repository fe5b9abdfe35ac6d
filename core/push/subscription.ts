import { z } from "zod";
import { lazySchema } from "../lazy-schema";

/**
 * The push services browsers subscribe with. A subscription's endpoint is a URL the browser gives,
 * so it is held to these hosts: a push is never a way to make the deployment call anything else.
 */
export const pushServiceHosts = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "web.push.apple.com",
  "*.push.apple.com",
  "*.notify.windows.com",
] as const;

/** Why an endpoint is refused, or undefined when it is a known push service (loopback only when the deployment allows it: tests). */
export function pushEndpointRefusal(endpoint: string, allowLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "endpoint is not a URL";
  }
  if (allowLoopback && url.protocol === "http:" && url.hostname === "127.0.0.1") return undefined;
  if (url.protocol !== "https:") return "endpoint must be https";
  const known = pushServiceHosts.some((h) =>
    h.startsWith("*.") ? url.hostname.endsWith(h.slice(1)) : url.hostname === h,
  );
  return known ? undefined : `endpoint must be a browser's push service: ${pushServiceHosts.join(", ")}`;
}

const base64Url = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, `${what}: base64url, as PushSubscription.toJSON() gives it`)
    .refine((v) => Math.floor((v.length * 3) / 4) === bytes, `${what}: ${bytes} bytes`);

/** `PushSubscription.toJSON()` as the browser gives it; the endpoint is one of the push services. */
export const pushSubscriptionSchema = lazySchema(() =>
  z.object({
    endpoint: z.string().max(2048, "at most 2048 characters"),
    expirationTime: z.number().nullable().optional(),
    keys: z.strictObject({
      p256dh: base64Url(65, "the browser's P-256 public key"),
      auth: base64Url(16, "the auth secret"),
    }),
  }),
);

export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;
