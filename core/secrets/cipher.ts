/**
 * Project secrets at rest: AES-GCM under a key derived (HKDF-SHA-256) from the deployment's key
 * (`PANTHEON_SECRETS_KEY`), and a keyed fingerprint (HMAC-SHA-256 under a second derived key) that
 * tells two values apart, or the same value in two projects, without saying either. WebCrypto only,
 * so the worker, the registry and the agent all run it.
 */

/** What the registry stores for one secret: never the value. */
export interface SealedSecret {
  name: string;
  /** Base64 of the 12-byte AES-GCM nonce, fresh for every write. */
  iv: string;
  /** Base64 of the ciphertext with its tag. */
  data: string;
  /** Hex HMAC-SHA-256 of the value under the deployment's fingerprint key. */
  fingerprint: string;
}

export class SecretsKeyError extends Error {
  override readonly name = "SecretsKeyError";
}

/** The deployment key's minimum length: 32 characters, e.g. `openssl rand -base64 32`. */
export const minSecretsKeyLength = 32;

const encoder = new TextEncoder();
const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toHex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** What binds a ciphertext to its place: a sealed value copied to another project or name does not open. */
const boundTo = (project: string, name: string) => encoder.encode(`pantheon-secret\u0000${project}\u0000${name}`);

export interface SecretCipher {
  seal(project: string, name: string, value: string): Promise<SealedSecret>;
  /** Throws when the key, the project or the name is not the one it was sealed with. */
  open(project: string, sealed: Pick<SealedSecret, "name" | "iv" | "data">): Promise<string>;
  fingerprint(value: string): Promise<string>;
}

/**
 * Checks the key at once (a short or absent key throws `SecretsKeyError` naming the fix); the
 * derived keys are made on first use.
 * @example
 * const cipher = makeSecretCipher(env.PANTHEON_SECRETS_KEY);
 * const sealed = await cipher.seal("acme", "AIRTABLE_KEY", "key-123");
 * await cipher.open("acme", sealed); // "key-123"
 */
export function makeSecretCipher(keyMaterial: string | undefined): SecretCipher {
  if (!keyMaterial)
    throw new SecretsKeyError(
      "project secrets need the deployment key PANTHEON_SECRETS_KEY: `npx wrangler secret put PANTHEON_SECRETS_KEY` (e.g. the output of `openssl rand -base64 32`); `npm start` makes one in .dev.vars",
    );
  if (keyMaterial.length < minSecretsKeyLength)
    throw new SecretsKeyError(
      `PANTHEON_SECRETS_KEY is too short: at least ${minSecretsKeyLength} characters (e.g. \`openssl rand -base64 32\`)`,
    );
  let keys: Promise<{ aes: CryptoKey; mac: CryptoKey }> | undefined;
  const derived = () =>
    (keys ??= (async () => {
      const base = await crypto.subtle.importKey("raw", encoder.encode(keyMaterial), "HKDF", false, ["deriveKey"]);
      const params = (info: string) => ({
        name: "HKDF",
        hash: "SHA-256",
        salt: encoder.encode("pantheon-secrets"),
        info: encoder.encode(info),
      });
      const aes = await crypto.subtle.deriveKey(params("aes-gcm"), base, { name: "AES-GCM", length: 256 }, false, [
        "encrypt",
        "decrypt",
      ]);
      const mac = await crypto.subtle.deriveKey(
        params("fingerprint"),
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      );
      return { aes, mac };
    })());
  const fingerprint = async (value: string) =>
    toHex(await crypto.subtle.sign("HMAC", (await derived()).mac, encoder.encode(value)));
  return {
    fingerprint,
    async seal(project, name, value) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const data = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: boundTo(project, name) },
        (await derived()).aes,
        encoder.encode(value),
      );
      return { name, iv: toBase64(iv), data: toBase64(new Uint8Array(data)), fingerprint: await fingerprint(value) };
    },
    async open(project, sealed) {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: fromBase64(sealed.iv), additionalData: boundTo(project, sealed.name) },
        (await derived()).aes,
        fromBase64(sealed.data),
      );
      return new TextDecoder().decode(plain);
    },
  };
}

/** The short form of a fingerprint the API shows: enough to tell values apart, too little to test guesses offline without the key. */
export const shortFingerprint = (fingerprint: string) => fingerprint.slice(0, 8);
