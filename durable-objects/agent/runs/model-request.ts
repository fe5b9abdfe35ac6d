import type { LlmRequest, ModelHop } from "../../../core/ports";
import type { RunEffect } from "../../../core/run";
import type { RunContext } from "./contracts";

/**
 * The model request of one `call_model` effect: the context's messages and tools, the agent's
 * sampling settings (temperature, top_p, max tokens), and where a cascade reports each model it
 * passed over (`onHop`: the driver writes it as a `model_hop` trace step with its reason).
 * @example
 * const request = modelRequestOf(ctx, effect, controller.signal, (hop) => trace(hop));
 */
export function modelRequestOf(
  ctx: RunContext,
  effect: Extract<RunEffect, { type: "call_model" }>,
  signal: AbortSignal,
  onHop: (hop: ModelHop) => void,
): LlmRequest {
  const model = ctx.profile.model;
  return {
    model: model.name,
    messages: effect.messages,
    ...(effect.tools.length ? { tools: effect.tools } : {}),
    ...(model.temperature !== undefined ? { temperature: model.temperature } : {}),
    ...(model.topP !== undefined ? { topP: model.topP } : {}),
    ...(model.maxTokens !== undefined ? { maxTokens: model.maxTokens } : {}),
    signal,
    onHop,
  };
}
