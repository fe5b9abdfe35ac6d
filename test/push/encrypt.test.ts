import { describe, expect, it } from "vitest";
import {
  base64UrlDecode,
  base64UrlEncode,
  decryptPush,
  encryptPush,
  newVapidSecret,
  p256Jwk,
  readVapidKey,
  vapidAuthorization,
} from "../../adapters/web-push";

// RFC 8291, Appendix A: the application server's and the user agent's keys, the salt, and the
// message as it goes over the wire, byte for byte.
const rfc = {
  plaintext: "When I grow up, I want to be a watermelon",
  asPrivate: "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw",
  asPublic: "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
  uaPrivate: "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94",
  uaPublic: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
  salt: "DGv6ra1nlYgDCS1FRnbzlw",
  auth: "BTBZMqHH6r4Tts7J_aSIgg",
  body:
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_" +
    "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
};

const ecdh = { name: "ECDH", namedCurve: "P-256" } as const;
const importPrivate = (publicKey: string, privateKey: string) =>
  crypto.subtle.importKey("jwk", p256Jwk(base64UrlDecode(publicKey), base64UrlDecode(privateKey)), ecdh, false, [
    "deriveBits",
  ]);

describe("Web Push encryption (RFC 8291)", () => {
  it("reproduces the RFC's test vector exactly from its keys and salt", async () => {
    const body = await encryptPush(
      new TextEncoder().encode(rfc.plaintext),
      { p256dh: rfc.uaPublic, auth: rfc.auth },
      {
        salt: base64UrlDecode(rfc.salt),
        privateKey: await importPrivate(rfc.asPublic, rfc.asPrivate),
        publicPoint: base64UrlDecode(rfc.asPublic),
      },
    );
    expect(base64UrlEncode(body)).toBe(rfc.body);
  });

  it("a fresh message decrypts with the subscription's key and with no other", async () => {
    const ua = {
      privateKey: await importPrivate(rfc.uaPublic, rfc.uaPrivate),
      publicPoint: base64UrlDecode(rfc.uaPublic),
      auth: base64UrlDecode(rfc.auth),
    };
    const body = await encryptPush(new TextEncoder().encode("an approval waits"), {
      p256dh: rfc.uaPublic,
      auth: rfc.auth,
    });
    expect(base64UrlEncode(body)).not.toContain(base64UrlEncode(new TextEncoder().encode("approval")));
    expect(new TextDecoder().decode(await decryptPush(body, ua))).toBe("an approval waits");
    expect(new TextDecoder().decode(await decryptPush(base64UrlDecode(rfc.body), ua))).toBe(rfc.plaintext);
    // Another device's key (the RFC's server key stands in) cannot read it.
    const other = { ...ua, privateKey: await importPrivate(rfc.asPublic, rfc.asPrivate) };
    await expect(decryptPush(body, other)).rejects.toThrow();
  });
});

describe("VAPID (RFC 8292)", () => {
  it("signs a JWT for the push service's origin that verifies with the public key it sends", async () => {
    const key = await readVapidKey(await newVapidSecret());
    const now = Date.UTC(2030, 0, 1);
    const header = await vapidAuthorization(
      "https://push.example.net/send/abc?x=1",
      key,
      "mailto:ops@example.com",
      now,
    );
    const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(header)!;
    expect(match[4]).toBe(key.publicKey);
    const claims = JSON.parse(new TextDecoder().decode(base64UrlDecode(match[2]!)));
    expect(claims).toEqual({
      aud: "https://push.example.net",
      exp: now / 1000 + 12 * 3600,
      sub: "mailto:ops@example.com",
    });
    const verifier = await crypto.subtle.importKey(
      "jwk",
      p256Jwk(base64UrlDecode(match[4]!)),
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    const signed = new TextEncoder().encode(`${match[1]}.${match[2]}`);
    const signature = base64UrlDecode(match[3]!);
    expect(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, verifier, signature, signed)).toBe(true);
    // Control: another key's public half does not verify it.
    const other = await readVapidKey(await newVapidSecret());
    const otherVerifier = await crypto.subtle.importKey(
      "jwk",
      p256Jwk(base64UrlDecode(other.publicKey)),
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    expect(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, otherVerifier, signature, signed)).toBe(
      false,
    );
  });

  it("refuses a secret that is not a P-256 private JWK, naming what it must be and never the value", async () => {
    await expect(readVapidKey("not-json-secret-value")).rejects.toThrow(/PANTHEON_VAPID_KEY is not JSON/);
    await expect(readVapidKey('{"kty":"RSA","n":"zzz-secret"}')).rejects.toThrow(/P-256 private key/);
    await expect(readVapidKey('{"kty":"RSA","n":"zzz-secret"}')).rejects.not.toThrow(/zzz-secret/);
  });
});
