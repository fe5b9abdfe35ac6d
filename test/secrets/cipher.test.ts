import { describe, expect, it } from "vitest";
import {
  implicitGrant,
  makeSecretCipher,
  readDeploymentSecret,
  SecretsKeyError,
  shortFingerprint,
} from "../../core/secrets";

const key = "a-deployment-key-of-at-least-32-characters!";
const value = "xoxb-value-that-must-not-leak-0001";

describe("project secrets at rest: AES-GCM under the deployment key", () => {
  it("the sealed form holds neither the value nor its base64; opening with the same key, project and name gives it back", async () => {
    const cipher = makeSecretCipher(key);
    const sealed = await cipher.seal("acme", "AIRTABLE_KEY", value);
    const stored = JSON.stringify(sealed);
    expect(stored).not.toContain(value);
    expect(stored).not.toContain(btoa(value));
    expect(stored).not.toContain(btoa(value).slice(0, 16));
    expect(await cipher.open("acme", sealed)).toBe(value);
    // A fresh nonce each time: the same value sealed twice does not look the same.
    const again = await cipher.seal("acme", "AIRTABLE_KEY", value);
    expect(again.data).not.toBe(sealed.data);
    expect(again.iv).not.toBe(sealed.iv);
  });

  it("another key, another project or another name cannot open it (a copied row stays shut)", async () => {
    const sealed = await makeSecretCipher(key).seal("acme", "AIRTABLE_KEY", value);
    await expect(makeSecretCipher(`${key}-other`).open("acme", sealed)).rejects.toThrow();
    await expect(makeSecretCipher(key).open("globex", sealed)).rejects.toThrow();
    await expect(makeSecretCipher(key).open("acme", { ...sealed, name: "GITHUB_TOKEN" })).rejects.toThrow();
    // Positive control: the right triple still opens.
    expect(await makeSecretCipher(key).open("acme", sealed)).toBe(value);
  });

  it("the fingerprint is keyed: the same value gives the same one under one key, another key gives another, and it is not the value's plain SHA-256", async () => {
    const a = makeSecretCipher(key);
    const fp = await a.fingerprint(value);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(await a.fingerprint(value)).toBe(fp);
    expect(await a.fingerprint(`${value}x`)).not.toBe(fp);
    expect(await makeSecretCipher(`${key}-other`).fingerprint(value)).not.toBe(fp);
    const plain = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(fp).not.toBe(plain);
    expect(shortFingerprint(fp)).toBe(fp.slice(0, 8));
    expect((await a.seal("acme", "X", value)).fingerprint).toBe(fp);
  });

  it("an absent or short key is refused when the cipher is made, saying how to set one", () => {
    expect(() => makeSecretCipher(undefined)).toThrow(SecretsKeyError);
    expect(() => makeSecretCipher(undefined)).toThrow("npx wrangler secret put PANTHEON_SECRETS_KEY");
    expect(() => makeSecretCipher("short")).toThrow("PANTHEON_SECRETS_KEY is too short: at least 32 characters");
    expect(() => makeSecretCipher(key)).not.toThrow();
  });
});

describe("deployment secrets: a worker secret or a Secrets Store binding, and what reaches which project", () => {
  it("reads a plain worker secret and a Secrets Store binding (get()) the same way; absent or empty is undefined", async () => {
    const store = { get: async () => "from-the-secrets-store" };
    const env = { PLAIN: "plain-value", STORED: store, EMPTY: "" };
    expect(await readDeploymentSecret(env, "PLAIN")).toBe("plain-value");
    expect(await readDeploymentSecret(env, "STORED")).toBe("from-the-secrets-store");
    expect(await readDeploymentSecret(env, "EMPTY")).toBeUndefined();
    expect(await readDeploymentSecret(env, "MISSING")).toBeUndefined();
    // The deployment key itself may be a Secrets Store binding.
    const key = await readDeploymentSecret(
      { PANTHEON_SECRETS_KEY: { get: async () => "k".repeat(40) } },
      "PANTHEON_SECRETS_KEY",
    );
    expect(await makeSecretCipher(key).open("p", await makeSecretCipher(key).seal("p", "N", "v-1"))).toBe("v-1");
  });

  it("without a grant, only `default` reaches PANTHEON_TOOL_SECRETS (any use) and TELEGRAM_* worker secrets (its bots only)", () => {
    const env = { PANTHEON_TOOL_SECRETS: "AIRTABLE_KEY", TELEGRAM_BOT_TOKEN: "1:x", GITHUB_TOKEN: "g" };
    expect(implicitGrant("default", "AIRTABLE_KEY", "tool", env)).toBe(true);
    expect(implicitGrant("acme", "AIRTABLE_KEY", "tool", env)).toBe(false);
    expect(implicitGrant("default", "TELEGRAM_BOT_TOKEN", "telegram", env)).toBe(true);
    expect(implicitGrant("default", "TELEGRAM_BOT_TOKEN", "tool", env)).toBe(false);
    expect(implicitGrant("acme", "TELEGRAM_BOT_TOKEN", "telegram", env)).toBe(false);
    expect(implicitGrant("default", "GITHUB_TOKEN", "tool", env)).toBe(false);
  });
});
