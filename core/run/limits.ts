import { z } from "zod";

/**
 * Limits of an agent's runs. The agent's values are ceilings: a request may lower them, never raise them.
 */
export const runLimitsSchema = z.object({
  maxSteps: z.number().int().min(1).max(100).default(10),
  maxHistory: z.number().int().min(0).max(500).default(20),
  modelTimeoutMs: z.number().int().min(100).max(600_000).default(60_000),
  toolTimeoutMs: z.number().int().min(100).max(300_000).default(15_000),
  maxTokensPerRun: z.number().int().min(1).max(10_000_000).default(200_000),
  /** Wall time of a whole run (approval waits excluded). */
  maxRunMs: z.number().int().min(1000).max(3_600_000).default(300_000),
  /** Gate rejections fed back to the model before the run fails. */
  maxRejections: z.number().int().min(0).max(10).default(3),
});

export type RunLimits = z.infer<typeof runLimitsSchema>;
export const defaultRunLimits: RunLimits = runLimitsSchema.parse({});

/** Model choice of an agent: provider + model name, optional temperature and fallback. */
export const modelSettingsSchema = z.object({
  provider: z.string().min(1).max(32).default("offline"),
  name: z.string().min(1).max(128).default("offline"),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(200_000).optional(),
  fallback: z.object({ provider: z.string().min(1).max(32), name: z.string().min(1).max(128) }).optional(),
});

export type ModelSettings = z.infer<typeof modelSettingsSchema>;
