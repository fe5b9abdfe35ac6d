import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { isReservedSecret, secretNamePattern } from "../tools/secrets";

/** A secret's value: at most 8 KiB (a bot token, an API key, a PEM key fit; a file does not). */
export const maxSecretValueBytes = 8 * 1024;

/** How many secrets one project keeps. */
export const maxProjectSecrets = 200;

/**
 * A project secret's name: UPPER_SNAKE, at most 64 characters, and not one Pantheon keeps for itself
 * (`PANTHEON_*`) or for the models (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
 */
export const projectSecretNameSchema = lazySchema(() =>
  z
    .string()
    .max(64, "at most 64 characters")
    .regex(secretNamePattern, "UPPER_SNAKE: A–Z first, then A–Z, 0–9 or '_' (e.g. AIRTABLE_KEY)")
    .refine((name) => !isReservedSecret(name), "a reserved name: PANTHEON_* and the model keys (OPENAI_API_KEY, ANTHROPIC_API_KEY) are the deployment's own and never reach a tool"),
);

/** `PUT /api/projects/:slug/secrets/:name`. */
export const secretValueInputSchema = lazySchema(() =>
  z.strictObject({
    value: z
      .string({ error: "the secret's value, a string" })
      .min(1, "the value is empty: to remove a secret, DELETE it")
      .refine((value) => new TextEncoder().encode(value).byteLength <= maxSecretValueBytes, `at most ${maxSecretValueBytes} bytes`),
  }),
);

/** `PUT /api/projects/:slug/grants/:name`: nothing to say beyond the name, so the body is optional and empty. */
export const grantNameSchema = projectSecretNameSchema;
