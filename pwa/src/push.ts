import type { makeApi } from "./api";

type Api = Pick<ReturnType<typeof makeApi>, "pushKey" | "subscribePush" | "removePushSubscription">;

/** Whether this browser can take push notifications at all (iOS only once the app is on the home screen). */
export function pushSupported(): boolean {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

function keyBytes(base64Url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64Url.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * Turns notifications on for this device: asks the person, subscribes the service worker with the
 * deployment's VAPID key and hands the subscription to the server (kept with this device's token).
 * Answers why not, in words, when it cannot.
 * @example
 * const why = await enablePush(api); // null when on
 */
export async function enablePush(api: Api): Promise<string | null> {
  if (!pushSupported())
    return "This browser cannot show notifications (on an iPhone, add the app to the home screen first).";
  const key = await api.pushKey();
  if (!key.enabled || !key.publicKey)
    return "Notifications are not set up on this server (its PANTHEON_VAPID_KEY is missing).";
  if ((await Notification.requestPermission()) !== "granted")
    return "Notifications are blocked for this site: allow them in the browser's site settings.";
  const registration = await navigator.serviceWorker.ready;
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(key.publicKey),
    }));
  const json = subscription.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
  await api.subscribePush({ endpoint: json.endpoint, keys: json.keys });
  return null;
}

/** Whether this device is subscribed now. */
export async function pushEnabled(): Promise<boolean> {
  if (!pushSupported() || Notification.permission !== "granted") return false;
  const registration = await navigator.serviceWorker.getRegistration();
  return !!(await registration?.pushManager.getSubscription());
}

/**
 * Turns them off on this device (the switch, and signing out): the browser drops its subscription and
 * the app badge and the notifications shown go at once, so a signed-out phone shows nothing of the
 * person's; then the server forgets the subscription (not only at the push service's next 410).
 * Offline, the server's record goes at that 410 instead.
 * @example
 * await disablePush(api); // an api holding the device's token: signing out may forget it meanwhile
 */
export async function disablePush(api: Pick<Api, "subscribePush" | "removePushSubscription">): Promise<void> {
  if (!("serviceWorker" in navigator)) return;
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = await registration?.pushManager?.getSubscription();
  const json = subscription?.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } } | undefined;
  await subscription?.unsubscribe().catch(() => false);
  for (const shown of (await registration?.getNotifications()) ?? []) shown.close();
  await (navigator as { clearAppBadge?(): Promise<void> }).clearAppBadge?.().catch(() => {});
  if (!json) return;
  // The server keeps one record per endpoint: handing it the subscription again answers that
  // record (its id) for this device's token, without a route of its own for "mine".
  const kept = await api.subscribePush({ endpoint: json.endpoint, keys: json.keys }).catch(() => null);
  if (kept) await api.removePushSubscription(kept.id).catch(() => {});
}
