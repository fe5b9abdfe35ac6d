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
