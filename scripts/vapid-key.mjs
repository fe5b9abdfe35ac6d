// Prints a new Web Push (VAPID) key as PANTHEON_VAPID_KEY holds it: a P-256 private key as a JWK.
// `npm start` writes one into .dev.vars; `npm run deploy -- --setup` pipes one into the production
// secret. Also imported for the key a test server derives from its admin token (dev-server.mjs).
import { createECDH, createHash } from "node:crypto";
import { fileURLToPath } from "node:url";

/** A VAPID key: random, or derived from `seed` (a test server's token: the same token, the same key). */
export function vapidKeyJson(seed) {
  const ecdh = createECDH("prime256v1");
  if (seed) ecdh.setPrivateKey(createHash("sha256").update(`pantheon-dev-vapid:${seed}`).digest());
  else ecdh.generateKeys();
  const point = ecdh.getPublicKey();
  const b64 = (bytes) => Buffer.from(bytes).toString("base64url");
  return JSON.stringify({
    kty: "EC",
    crv: "P-256",
    x: b64(point.subarray(1, 33)),
    y: b64(point.subarray(33, 65)),
    d: b64(ecdh.getPrivateKey()),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(vapidKeyJson());
