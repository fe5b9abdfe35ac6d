import * as workers from "cloudflare:workers";
import type { LlmPort } from "../../../core/ports";

/**
 * Model calls as custom spans of the platform's own tracing (Workers traces, `observability.traces`
 * in wrangler.toml), beside its automatic fetch, RPC and storage spans: `chat <model>` with the
 * GenAI attributes. Where the runtime has no tracing (an older workerd) the port is returned as is.
 */
// The runtime's `tracing` (newer than the types this project builds with): only what is used here.
interface PlatformSpan {
  setAttributes(attributes: Record<string, string | number | boolean | undefined>): unknown;
}
interface PlatformTracing {
  enterSpan<T>(name: string, callback: (span: PlatformSpan) => T): T;
}
const tracing = (workers as unknown as { tracing?: PlatformTracing }).tracing;

export function withPlatformSpans(llm: LlmPort): LlmPort {
  if (!tracing?.enterSpan) return llm;
  return {
    provider: llm.provider,
    complete: (request) =>
      tracing.enterSpan(`chat ${request.model}`, async (span) => {
        span.setAttributes({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": llm.provider,
          "gen_ai.request.model": request.model,
        });
        const response = await llm.complete(request);
        span.setAttributes({
          "gen_ai.response.model": response.model,
          "gen_ai.usage.input_tokens": response.usage.inputTokens,
          "gen_ai.usage.output_tokens": response.usage.outputTokens,
          "gen_ai.response.finish_reasons": response.finishReason,
        });
        return response;
      }),
    // A stream is consumed after the call returns: its span is left to the platform's fetch span.
    stream: (request) => llm.stream(request),
  };
}
