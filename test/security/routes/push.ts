import type { RouteEntry } from "./types";

const sampleSubscription = {
  endpoint: "https://fcm.googleapis.com/fcm/send/route-inventory-sample",
  keys: {
    p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
    auth: "BTBZMqHH6r4Tts7J_aSIgg",
  },
};

/**
 * Web Push (workers/api/push.ts). Subscribing and muting belong to a person's device: the admin
 * token and plain tokens are refused with 403 (test/push/ covers a person's device end to end).
 */
export const pushRoutes: readonly RouteEntry[] = [
  { method: "GET", path: "/api/push/key", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "POST",
    path: "/api/push/subscriptions",
    family: "api",
    scope: "chat",
    expect: 403,
    sample: () => ({ params: {}, body: { json: sampleSubscription } }),
  },
  {
    method: "GET",
    path: "/api/push/subscriptions",
    family: "api",
    scope: "chat",
    expect: 200,
    sample: () => ({ params: {} }),
  },
  {
    method: "DELETE",
    path: "/api/push/subscriptions/:id",
    family: "api",
    scope: "chat",
    expect: 404,
    sample: () => ({ params: { id: "00000000-0000-4000-8000-000000000000" } }),
  },
  { method: "GET", path: "/api/push/mutes", family: "api", scope: "chat", expect: 403, sample: () => ({ params: {} }) },
  {
    method: "PUT",
    path: "/api/push/mutes/:agent",
    family: "api",
    scope: "chat",
    expect: 403,
    sample: (f) => ({ params: { agent: f.agent } }),
  },
  {
    method: "DELETE",
    path: "/api/push/mutes/:agent",
    family: "api",
    scope: "chat",
    expect: 403,
    sample: (f) => ({ params: { agent: f.agent } }),
  },
];
