import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { isModelSetting } from "../models/project-keys";
import { checkOutboundUrl, type OutboundOptions } from "../tools/host-policy";
import { secretNamePattern } from "../tools/secrets";

/** A secret's value: at most 8 KiB (a bot token, an API key, a PEM key fit; a file does not). */
export const maxSecretValueBytes = 8 * 1024;

/** How many secrets one project keeps. */
export const maxProjectSecrets = 200;

/**
 * A project secret's name: UPPER_SNAKE, at most 64 characters, and not one Pantheon keeps for itself
 * (`PANTHEON_*`). The model settings (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `OPENAI_BASE_URL`) are
 * allowed: the project's agents call their models with them, and no tool ever receives them.
 */
export const projectSecretNameSchema = lazySchema(() =>
  z
    .string()
    .max(64, "at most 64 characters")
    .regex(secretNamePattern, "UPPER_SNAKE: A–Z first, then A–Z, 0–9 or '_' (e.g. AIRTABLE_KEY)")
    .refine(
      (name) => !name.startsWith("PANTHEON_"),
      "a reserved name: PANTHEON_* are Pantheon's own and never reach a project",
    ),
);

/** `PUT /api/projects/:slug/secrets/:name`. */
export const secretValueInputSchema = lazySchema(() =>
  z.strictObject({
    value: z
      .string({ error: "the secret's value, a string" })
      .min(1, "the value is empty: to remove a secret, DELETE it")
      .refine(
        (value) => new TextEncoder().encode(value).byteLength <= maxSecretValueBytes,
        `at most ${maxSecretValueBytes} bytes`,
      ),
  }),
);

/**
 * `PUT /api/projects/:slug/grants/:name`: nothing to say beyond the name, so the body is optional and
 * empty. The deployment's model settings are not granted: a project without its own uses them anyway.
 */
export const grantNameSchema = lazySchema(() =>
  projectSecretNameSchema.refine(
    (name) => !isModelSetting(name),
    "a model setting: a project without its own already uses the deployment's; to use its own, the project sets it (`pantheon secrets set`)",
  ),
);

/**
 * Why a project's `OPENAI_BASE_URL` may not be `value`, or undefined when it may: the project admin
 * names an outbound URL, so it passes the same guard as an HTTP tool's endpoint (http(s), no
 * credentials, no internal or metadata address), its own host being its allowlist.
 * @example
 * modelBaseUrlRefusal("http://169.254.169.254/v1", { allowLoopback: false }); // "169.254.169.254 is in the link-local (cloud metadata) range"
 * modelBaseUrlRefusal("https://models.example.com/v1", { allowLoopback: false }); // undefined
 */
export function modelBaseUrlRefusal(value: string, options: OutboundOptions): string | undefined {
  const check = checkOutboundUrl(value, [hostOf(value)], options);
  return check.ok ? undefined : check.reason;
}

/** The host of a URL (brackets off), or "" when it is not one (the guard then says why). */
export function hostOf(raw: string): string {
  try {
    return new URL(raw).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return "";
  }
}
