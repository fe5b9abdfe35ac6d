import { z } from "zod";
import { modelSettingsSchema } from "../run/limits";

/** Agent names are lower-case slugs: they appear in URLs, Durable Object names and tool names. */
export const agentNamePattern = /^[a-z][a-z0-9-]{0,62}$/;

export const agentNameSchema = z
  .string()
  .regex(agentNamePattern, "must be a lower-case slug: a letter, then letters, digits or '-', at most 63 characters");

export const projectNameSchema = agentNameSchema;

/** What an operator sends to create an agent. */
export const agentInputSchema = z.strictObject({
  name: agentNameSchema,
  description: z.string().max(2000).default(""),
  systemPrompt: z.string().max(32_000).default("You are a helpful agent."),
  model: modelSettingsSchema.default({ provider: "offline", name: "offline" }),
});
export type AgentInput = z.infer<typeof agentInputSchema>;

export const agentPatchSchema = z.strictObject({
  description: z.string().max(2000).optional(),
  systemPrompt: z.string().max(32_000).optional(),
  model: modelSettingsSchema.optional(),
});
export type AgentPatch = z.infer<typeof agentPatchSchema>;

/** Any JSON value: what crosses Durable Object RPC and storage as plain data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** An agent as the registry stores it and the API returns it. */
export interface AgentProfile {
  name: string;
  description: string;
  systemPrompt: string;
  model: z.infer<typeof modelSettingsSchema>;
  connections: string[];
  /** The compiled script (ActorScript JSON) when one is set. */
  script: JsonValue | null;
  parent: string | null;
  createdAt: number;
  updatedAt: number;
}
