import { makeSecretDetector, type SecretForm } from "../redaction";

/**
 * The secret-leak check of output gates: does a text carry one of the agent's secrets, plainly,
 * encoded (base64, base64url, hex, url-encoded), reversed, split, or in part (half the secret, at
 * least 8 characters)? The same detector as every redaction (core/redaction); pure. The secret-leak
 * output gate (core/gates/output.ts) runs it on every reply, message, memory and answer.
 * @example
 * findSecretLeak("token: c2stbGl2ZS0xMjM0NTY3OA==", ["sk-live-12345678"]) // { form: "base64", secretIndex: 0 }
 */
export interface SecretLeak {
  secretIndex: number;
  form: SecretForm;
}

/** Secrets shorter than this are not checked: refusing a whole output over an ordinary word costs more than redacting it. */
export const minSecretLength = 8;

export function findSecretLeak(text: string, secrets: readonly string[]): SecretLeak | null {
  // Names are the indexes, so the finding says which secret without holding its value.
  const found = makeSecretDetector(
    secrets.map((value, i) => ({ name: String(i), value })),
    { minLength: minSecretLength },
  ).first(text);
  return found ? { secretIndex: Number(found.name), form: found.form } : null;
}
