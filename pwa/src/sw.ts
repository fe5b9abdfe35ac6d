/// <reference lib="webworker" />
import { makeApi } from "./api";
import { uploadPictures } from "./chat-pictures";
import { makeOutbox } from "./outbox";

/**
 * The service worker: keeps the app shell so the PWA opens offline, never caches the API,
 * and drains the offline outbox on Background Sync (where the browser has it).
 */
declare const self: ServiceWorkerGlobalScope;
declare const SHELL_VERSION: string;
declare const SHELL_FILES: string[];

const CACHE = `pantheon-shell-${SHELL_VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL_FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys())
        if (key.startsWith("pantheon-shell-") && key !== CACHE) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method === "POST" && url.origin === self.location.origin && url.pathname === "/share-target") {
    event.respondWith(takeShare(event.request));
    return;
  }
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (/^\/(api|agents|v1|mcp)(\/|$)/.test(url.pathname)) return;
  if (event.request.mode === "navigate") {
    // Network first so a new deploy shows at once; the cached shell when offline.
    // "/" rather than "/index.html": the assets server redirects the latter, and a cached
    // redirect cannot answer a navigation.
    event.respondWith(
      fetch(event.request).catch(async () => (await caches.match("/", { cacheName: CACHE })) ?? Response.error()),
    );
    return;
  }
  event.respondWith((async () => (await caches.match(event.request, { cacheName: CACHE })) ?? fetch(event.request))());
});

interface SyncEvent extends ExtendableEvent {
  tag: string;
}

self.addEventListener("sync", ((event: SyncEvent) => {
  if (event.tag !== "pantheon-outbox") return;
  event.waitUntil(drain());
}) as EventListener);

async function drain(): Promise<void> {
  const outbox = makeOutbox({ indexedDB, now: Date.now });
  let current: { token: string; project: string } = { token: "", project: "default" };
  const api = makeApi({ getToken: () => current.token, getProject: () => current.project });
  const sent = await outbox.drain(async (m) => {
    current = { token: m.token, project: m.project };
    const up = await uploadPictures(api, m.agent, m.pictures ?? []);
    // A refused picture waits for the page: it hands the message back to the person with the reason.
    if (up.failed) throw up.failed.error;
    await api.sendMessage(m.agent, {
      ...(m.content.trim() ? { content: m.content } : {}),
      session: m.session,
      clientId: m.id,
      ...(up.ids.length ? { images: up.ids } : {}),
    });
  });
  const clients = await self.clients.matchAll({ type: "window" });
  for (const m of sent) for (const c of clients) c.postMessage({ type: "outbox-sent", id: m.id, agent: m.agent });
}

// ---- push notifications (docs/push.md) ------------------------------------------------------

interface PushNotice {
  title: string;
  body: string;
  url: string;
  tag: string;
  clear?: true;
  /** How many things wait for the person (approvals, questions, blocked tasks), as the server counted at sending. */
  waiting?: number;
}

/**
 * A push shows its notice (one of a tag replaces the last); a `clear` notice closes that tag's
 * notification here (an approval answered on another device). The app badge shows the `waiting`
 * count the push carries: everything that waits for the person, whether its notification is shown.
 */
self.addEventListener("push", (event) => {
  let notice: PushNotice;
  try {
    notice = event.data?.json() as PushNotice;
  } catch {
    return;
  }
  if (!notice?.tag) return;
  event.waitUntil(
    (async () => {
      if (notice.clear) for (const n of await self.registration.getNotifications({ tag: notice.tag })) n.close();
      else
        await self.registration.showNotification(notice.title, {
          body: notice.body,
          tag: notice.tag,
          data: { url: notice.url },
          icon: "/icon-192.png",
        });
      await badge(notice.waiting);
    })(),
  );
});

/** A click opens the exact approval or chat: in a window of the app already open, else a new one. */
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL((event.notification.data as { url?: string } | null)?.url ?? "/", self.location.origin);
  if (url.origin !== self.location.origin) return;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows[0] as WindowClient | undefined;
      if (open) {
        await open.navigate(url.href).catch(() => null);
        // The browser may refuse focus (no user activation left): the window has the page all the same.
        await open.focus().catch(() => null);
      } else await self.clients.openWindow(url.href);
      await badge();
    })(),
  );
});

self.addEventListener("notificationclose", (event) => event.waitUntil(badge()));

const badgeCache = "pantheon-badge";

/**
 * The Badging API where the browser has it: what waits for the person. A push's `waiting` count is
 * kept (a cache of its own: the worker may be stopped between events), so opening or dismissing a
 * notification leaves the badge alone while the thing still waits; without a count from the server
 * (an older deployment), the notices shown are counted.
 */
async function badge(waiting?: number): Promise<void> {
  const nav = self.navigator as Navigator & {
    setAppBadge?(n?: number): Promise<void>;
    clearAppBadge?(): Promise<void>;
  };
  const cache = await caches.open(badgeCache);
  if (typeof waiting === "number") await cache.put("/badge", Response.json({ waiting }));
  const kept = (await (await cache.match("/badge"))?.json()) as { waiting?: number } | undefined;
  const count = kept?.waiting ?? (await self.registration.getNotifications()).length;
  await (count ? nav.setAppBadge?.(count) : nav.clearAppBadge?.())?.catch(() => {});
}

// ---- Web Share Target (the manifest's share_target) -----------------------------------------

/** Keeps what another app shared (pwa/src/share.ts reads it) and opens the page that asks which agent. */
async function takeShare(request: Request): Promise<Response> {
  const form = await request.formData();
  // One share waits at a time: a new one replaces what an earlier one left unused.
  await caches.delete("pantheon-share");
  const fresh = await caches.open("pantheon-share");
  const files = form
    .getAll("photos")
    .filter((f): f is File => typeof f !== "string" && f.size > 0)
    .slice(0, 4);
  for (const [i, file] of files.entries()) await fresh.put(`/shared/file/${i}`, new Response(file));
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value.slice(0, 32_000) : "";
  };
  await fresh.put(
    "/shared/meta",
    Response.json({
      title: text("title"),
      text: text("text"),
      url: text("url"),
      files: files.map((f) => ({ name: f.name })),
    }),
  );
  return Response.redirect("/#/share", 303);
}
