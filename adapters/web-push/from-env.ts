import { readVapidKey, type VapidKey } from "./vapid";

/** What the deployment's environment says of push: its VAPID key secret and the subject push services may write to. */
export interface PushEnv {
  PANTHEON_VAPID_KEY?: string;
  PANTHEON_VAPID_SUBJECT?: string;
}

const read = new Map<string, Promise<VapidKey | null>>();

/**
 * The deployment's VAPID key, read once per isolate and secret; null when push is not set up (no
 * secret, or one that is not a key: the doctor says which).
 * @example
 * const vapid = await vapidOf(env); // { key, subject } | null
 */
export async function vapidOf(env: PushEnv): Promise<{ key: VapidKey; subject: string } | null> {
  const secret = env.PANTHEON_VAPID_KEY;
  if (!secret) return null;
  if (!read.has(secret))
    read.set(
      secret,
      readVapidKey(secret).catch(() => null),
    );
  const key = await read.get(secret)!;
  // RFC 8292 asks for a contact; a deployment that names none still pushes (browsers' services accept it).
  return key ? { key, subject: env.PANTHEON_VAPID_SUBJECT || "mailto:push@pantheon.invalid" } : null;
}
