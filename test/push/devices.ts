import { env } from "cloudflare:test";
import { expect } from "vitest";
import { base64UrlDecode, base64UrlEncode, decryptPush, p256Jwk } from "../../adapters/web-push";
import { api, uniqueName } from "../api/client";

// People signed in by invite with a browser's push subscription each, against the push-service double
// (test/doubles/push-service.ts); each push they got is decrypted with the subscription's private key
// and its VAPID JWT checked (audience, expiry, signature).

export const pushService = (env as unknown as { PUSH_SERVICE_URL: string }).PUSH_SERVICE_URL;

export interface Device {
  person: string;
  token: string;
  key: string;
  ua: { privateKey: CryptoKey; publicPoint: Uint8Array; auth: Uint8Array };
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
}

/** A person signed in by an invite (`project`'s), with a browser's push subscription of its own. */
export async function device(scope: "chat" | "approve" | "admin", project = "default", gone = false): Promise<Device> {
  const headers = { "x-pantheon-project": project };
  const person = uniqueName("person");
  const invite = (await (
    await api("/api/invites", { method: "POST", json: { name: person, scope }, headers })
  ).json()) as any;
  const redeemed = (await (
    await api("/api/invites/redeem", { method: "POST", token: null, headers, json: { code: invite.code } })
  ).json()) as any;
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const publicPoint = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const auth = crypto.getRandomValues(new Uint8Array(16));
  const key = uniqueName("push");
  const subscription = {
    endpoint: `${pushService}/${gone ? "gone" : "push"}/${key}`,
    keys: { p256dh: base64UrlEncode(publicPoint), auth: base64UrlEncode(auth) },
  };
  const res = await api("/api/push/subscriptions", {
    method: "POST",
    token: redeemed.token,
    headers,
    json: subscription,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { person, token: redeemed.token, key, ua: { privateKey: pair.privateKey, publicPoint, auth }, subscription };
}

export async function recorded(d: Device): Promise<{ headers: Record<string, string>; body: string }[]> {
  return (await (await fetch(`${pushService}/__pushes?key=${d.key}`)).json()) as any;
}

/** The notices a device got, without the count of what waits for the person (see `payloads`). */
export async function notices(d: Device): Promise<any[]> {
  return (await payloads(d)).map(({ waiting: _, ...notice }) => notice);
}

/** What a device got, decrypted with its key, each VAPID JWT checked on the way: the notice and the `waiting` count. */
export async function payloads(d: Device): Promise<any[]> {
  const out = [];
  for (const push of await recorded(d)) {
    expect(push.headers["content-encoding"]).toBe("aes128gcm");
    const [, jwt, k] = /^vapid t=([\w.-]+), k=([\w-]+)$/.exec(push.headers.authorization!)!;
    const [head, claims, signature] = jwt!.split(".");
    const payload = JSON.parse(new TextDecoder().decode(base64UrlDecode(claims!)));
    expect(payload.aud).toBe(new URL(pushService).origin);
    expect(payload.exp).toBeGreaterThan(Date.now() / 1000);
    expect(payload.exp).toBeLessThanOrEqual(Date.now() / 1000 + 24 * 3600);
    expect(payload.sub).toBe("mailto:ops@pantheon.test");
    const served = (await (await api("/api/push/key")).json()) as any;
    expect(k).toBe(served.publicKey);
    const verifier = await crypto.subtle.importKey(
      "jwk",
      p256Jwk(base64UrlDecode(k!)),
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    const signed = new TextEncoder().encode(`${head}.${claims}`);
    expect(
      await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, verifier, base64UrlDecode(signature!), signed),
    ).toBe(true);
    const plain = await decryptPush(
      Uint8Array.from(atob(push.body), (c) => c.charCodeAt(0)),
      d.ua,
    );
    out.push(JSON.parse(new TextDecoder().decode(plain)));
  }
  return out;
}

/** Waits for a condition the pushes sent in the background will make true (no time is asserted). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, label: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${label}`);
}
