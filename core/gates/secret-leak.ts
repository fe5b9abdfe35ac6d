/**
 * The secret-leak check of output gates: does a text carry one of the agent's secrets, plainly,
 * encoded (base64, base64url, hex, url-encoded) or in part (half the secret, at least 8 characters)?
 * Pure; the secret-leak output gate (core/gates/output.ts) runs it on every reply, message, memory and answer.
 * @example
 * findSecretLeak("token: c2stbGl2ZS0xMjM0NTY3OA==", ["sk-live-12345678"]) // { form: "base64", secretIndex: 0 }
 */
export interface SecretLeak {
  secretIndex: number;
  form: "plain" | "base64" | "hex" | "url-encoded" | "partial";
}

/** Secrets shorter than this are not checked: they would match ordinary words. */
export const minSecretLength = 8;

export function findSecretLeak(text: string, secrets: readonly string[]): SecretLeak | null {
  const views: [SecretLeak["form"], string][] = [["plain", text], ["url-encoded", urlDecoded(text)], ...decodedRuns(text)];
  for (const [secretIndex, secret] of secrets.entries()) {
    if (secret.length < minSecretLength) continue;
    for (const [form, view] of views) if (view.includes(secret)) return { secretIndex, form };
    const part = Math.max(minSecretLength, Math.ceil(secret.length / 2));
    if (part >= secret.length) continue;
    for (let i = 0; i + part <= secret.length; i++) {
      const piece = secret.slice(i, i + part);
      if (views.some(([, view]) => view.includes(piece))) return { secretIndex, form: "partial" };
    }
  }
  return null;
}

function urlDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Runs that look like base64 or hex, decoded (as Latin-1 text, which keeps ASCII secrets intact). */
function decodedRuns(text: string): [SecretLeak["form"], string][] {
  const out: [SecretLeak["form"], string][] = [];
  for (const run of text.match(/[0-9a-fA-F]{16,}/g) ?? [])
    out.push(["hex", run.slice(0, run.length - (run.length % 2)).replace(/../g, (pair) => String.fromCharCode(parseInt(pair, 16)))]);
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
    const standard = run.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
    // A run may start mid-way through the encoded data: try each of the 4 alignments.
    for (let skip = 0; skip < 4; skip++) {
      const body = standard.slice(skip);
      try {
        const whole = body.length % 4 === 1 ? body.slice(0, -1) : body;
        out.push(["base64", atob(whole.padEnd(Math.ceil(whole.length / 4) * 4, "="))]);
      } catch {
        // not base64 at this alignment
      }
    }
  }
  return out;
}
