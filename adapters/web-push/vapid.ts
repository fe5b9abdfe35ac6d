// RFC 8292 (VAPID): the application server signs a short JWT (ES256) for each push service origin
// and sends it with its public key, so a push service knows whom its subscriptions belong to.
import { base64UrlDecode, base64UrlEncode } from "./encrypt";

/** The deployment's VAPID key: the private half to sign with, the public half as browsers take it. */
export interface VapidKey {
  privateKey: CryptoKey;
  /** The uncompressed public point, base64url: `applicationServerKey` in the browser, `k=` on each push. */
  publicKey: string;
}

/**
 * Reads the deployment secret (`PANTHEON_VAPID_KEY`: the private key as a JWK, the way
 * `npm start` and `npm run deploy -- --setup` write it). Throws a message naming what is wrong,
 * never the value.
 * @example
 * const key = await readVapidKey(env.PANTHEON_VAPID_KEY);
 */
export async function readVapidKey(secret: string): Promise<VapidKey> {
  let jwk: JsonWebKey;
  try {
    jwk = JSON.parse(secret) as JsonWebKey;
  } catch {
    throw new Error("PANTHEON_VAPID_KEY is not JSON: it holds a P-256 private key as a JWK");
  }
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d || !jwk.x || !jwk.y)
    throw new Error("PANTHEON_VAPID_KEY is not a P-256 private key (a JWK with kty EC, crv P-256, x, y and d)");
  const privateKey = await crypto.subtle.importKey(
    "jwk",
    { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y, d: jwk.d },
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const point = new Uint8Array(65);
  point[0] = 4;
  point.set(base64UrlDecode(jwk.x), 1);
  point.set(base64UrlDecode(jwk.y), 33);
  return { privateKey, publicKey: base64UrlEncode(point) };
}

/** A new VAPID key as the secret holds it (the setup and `npm start` make one). */
export async function newVapidSecret(): Promise<string> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
  ])) as CryptoKeyPair;
  const { kty, crv, x, y, d } = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return JSON.stringify({ kty, crv, x, y, d });
}

/** How long a signature holds: RFC 8292 allows at most 24 hours; 12 leaves room for skewed clocks. */
export const vapidLifetimeSeconds = 12 * 60 * 60;

/**
 * The `Authorization` header of one push: `vapid t=<JWT>, k=<public key>`, the JWT's audience the
 * push service's origin.
 * @example
 * headers.authorization = await vapidAuthorization(endpoint, key, "mailto:ops@example.com", Date.now());
 */
export async function vapidAuthorization(endpoint: string, key: VapidKey, subject: string, now: number) {
  const encode = (value: unknown) => base64UrlEncode(new TextEncoder().encode(JSON.stringify(value)));
  const claims = { aud: new URL(endpoint).origin, exp: Math.floor(now / 1000) + vapidLifetimeSeconds, sub: subject };
  const signed = `${encode({ typ: "JWT", alg: "ES256" })}.${encode(claims)}`;
  // Web Crypto's ECDSA signature is already the raw r||s JWS wants (not DER).
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    key.privateKey,
    new TextEncoder().encode(signed),
  );
  return `vapid t=${signed}.${base64UrlEncode(new Uint8Array(signature))}, k=${key.publicKey}`;
}
