// RFC 8291 (Message Encryption for Web Push) over RFC 8188's `aes128gcm` content coding, with Web
// Crypto alone. Written here rather than taken from a library: @pushforge/builder derives its keys
// the way the older `aesgcm` draft did (RFC 8291 is `aes128gcm`), and @block65/webcrypto-web-push,
// which is right, draws its salt and key pair inside, so RFC 8291's own test vector cannot be
// reproduced through it (test/push/encrypt.test.ts does exactly that here).

import { base64UrlDecode, base64UrlEncode, concatBytes } from "../../core/bytes";

const text = (s: string) => new TextEncoder().encode(s);

export { base64UrlDecode, base64UrlEncode };

/** A fresh copy of the parts in one buffer: Web Crypto takes an ArrayBuffer-backed array. */
const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => concatBytes(parts);

async function hkdf(salt: Uint8Array, ikm: Uint8Array, info: Uint8Array, bytes: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", concat(ikm), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: concat(salt), info: concat(info) },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
}

/** A P-256 key pair as Web Crypto takes it, from its uncompressed public point and (for the private half) its scalar. */
export function p256Jwk(publicPoint: Uint8Array, privateScalar?: Uint8Array): JsonWebKey {
  if (publicPoint.length !== 65 || publicPoint[0] !== 4)
    throw new Error("a P-256 public key is 65 bytes starting 0x04");
  return {
    kty: "EC",
    crv: "P-256",
    x: base64UrlEncode(publicPoint.slice(1, 33)),
    y: base64UrlEncode(publicPoint.slice(33, 65)),
    ...(privateScalar ? { d: base64UrlEncode(privateScalar) } : {}),
    ext: true,
  };
}

/** The sender's one-time key pair and salt; drawn fresh for every message unless a test gives them. */
export interface SenderKeys {
  salt: Uint8Array;
  privateKey: CryptoKey;
  publicPoint: Uint8Array;
}

export async function freshSenderKeys(): Promise<SenderKeys> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  return {
    salt: crypto.getRandomValues(new Uint8Array(16)),
    privateKey: pair.privateKey,
    publicPoint: new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer),
  };
}

/** The record size written in the header: one record of at most 4096 bytes is all a push service must take. */
const recordSize = 4096;

/**
 * Encrypts `plaintext` for a subscription (its `p256dh` and `auth`, base64url as the browser gives
 * them): the `aes128gcm` body, header (salt, record size, the sender's public key) and one record.
 * @example
 * const body = await encryptPush(new TextEncoder().encode("{}"), { p256dh, auth });
 */
export async function encryptPush(
  plaintext: Uint8Array,
  subscription: { p256dh: string; auth: string },
  sender?: SenderKeys,
): Promise<Uint8Array<ArrayBuffer>> {
  const { salt, privateKey, publicPoint } = sender ?? (await freshSenderKeys());
  const uaPublic = base64UrlDecode(subscription.p256dh);
  const authSecret = base64UrlDecode(subscription.auth);
  if (authSecret.length !== 16) throw new Error("a subscription's auth secret is 16 bytes");
  if (plaintext.length > recordSize - 86 - 17) throw new Error("a push message holds at most 3993 bytes");
  const uaKey = await crypto.subtle.importKey(
    "jwk",
    p256Jwk(uaPublic),
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const shared = new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: "ECDH", public: uaKey } as unknown as Parameters<SubtleCrypto["deriveBits"]>[0],
      privateKey,
      256,
    ),
  );
  // RFC 8291 §3.4: the input keying material binds both public keys and the auth secret.
  const ikm = await hkdf(authSecret, shared, concat(text("WebPush: info\0"), uaPublic, publicPoint), 32);
  const cek = await hkdf(salt, ikm, text("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, text("Content-Encoding: nonce\0"), 12);
  const key = await crypto.subtle.importKey("raw", concat(cek), "AES-GCM", false, ["encrypt"]);
  // RFC 8188: the last (here the only) record ends with the delimiter 0x02 and no padding.
  const record = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: concat(nonce) },
    key,
    concat(plaintext, new Uint8Array([2])),
  );
  const header = new Uint8Array(21);
  header.set(salt, 0);
  new DataView(header.buffer).setUint32(16, recordSize);
  header[20] = publicPoint.length;
  return concat(header, publicPoint, new Uint8Array(record));
}

/**
 * The browser's side, for tests and the push-service double: decrypts a body with the subscription's
 * private key. Throws when it was not encrypted for that key.
 */
export async function decryptPush(
  body: Uint8Array,
  ua: { privateKey: CryptoKey; publicPoint: Uint8Array; auth: Uint8Array },
): Promise<Uint8Array> {
  const salt = body.slice(0, 16);
  const idLength = body[20]!;
  const senderPublic = body.slice(21, 21 + idLength);
  const senderKey = await crypto.subtle.importKey(
    "jwk",
    p256Jwk(senderPublic),
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const shared = new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: "ECDH", public: senderKey } as unknown as Parameters<SubtleCrypto["deriveBits"]>[0],
      ua.privateKey,
      256,
    ),
  );
  const ikm = await hkdf(ua.auth, shared, concat(text("WebPush: info\0"), ua.publicPoint, senderPublic), 32);
  const cek = await hkdf(salt, ikm, text("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, text("Content-Encoding: nonce\0"), 12);
  const key = await crypto.subtle.importKey("raw", concat(cek), "AES-GCM", false, ["decrypt"]);
  const padded = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: concat(nonce) }, key, concat(body.slice(21 + idLength))),
  );
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("the record does not end with the last record's delimiter");
  return padded.slice(0, end);
}
