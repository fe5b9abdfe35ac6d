import { describe, expect, it } from "vitest";
import { findSecretLeak } from "../../core/gates";

const secret = "sk-live-9f8e7d6c5b4a3210";
const toHex = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");

describe("the secret-leak check of output gates", () => {
  it("finds a secret plainly, base64 (standard, url-safe, mid-stream), hex, url-encoded and in part", () => {
    expect(findSecretLeak(`the key is ${secret}`, [secret])).toEqual({ secretIndex: 0, form: "plain" });
    expect(findSecretLeak(`b64: ${btoa(secret)}`, [secret])).toEqual({ secretIndex: 0, form: "base64" });
    expect(
      findSecretLeak(`b64: ${btoa(`prefix:${secret}`).replace(/\+/g, "-").replace(/\//g, "_")}`, [
        "other-secret-1",
        secret,
      ]),
    ).toEqual({ secretIndex: 1, form: "base64" });
    expect(findSecretLeak(`hex ${toHex(secret).toUpperCase()}`, [secret])).toEqual({ secretIndex: 0, form: "hex" });
    expect(
      findSecretLeak(`url ${[...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`, [secret]),
    ).toEqual({ secretIndex: 0, form: "url-encoded" });
    expect(findSecretLeak(`starts with ${secret.slice(0, 13)}…`, [secret])).toEqual({
      secretIndex: 0,
      form: "partial",
    });
  });

  it("lets ordinary text through, and ignores secrets too short to tell from words", () => {
    expect(findSecretLeak("Left comments on the PR; the build is green (commit 9f8e7d).", [secret])).toBeNull();
    expect(findSecretLeak("password is short", ["short"])).toBeNull();
  });
});
