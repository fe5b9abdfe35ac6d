import { makeSecretDetector, type NamedSecret, type SecretDetector } from "../../../core/redaction";
import type { RunContext } from "./contracts";

/** The detector of each run context's secrets list (one list per tool set and secrets version: output-screens). */
const detectors = new WeakMap<readonly NamedSecret[], SecretDetector>();

/**
 * The one redactor of what a run writes: every secret the agent holds (its tools', its bot's, its
 * model keys, its OTLP headers, the deployment's: output-screens `secretsHeld`), in any form the
 * detector knows (core/redaction). Its trace, its errors and the spans made from them all pass it.
 */
export function runRedactor(ctx: Pick<RunContext, "secrets">): SecretDetector {
  let detector = detectors.get(ctx.secrets);
  if (!detector) detectors.set(ctx.secrets, (detector = makeSecretDetector(ctx.secrets)));
  return detector;
}

/**
 * A trace step's data as it is written: every secret the agent holds is redacted — in a tool's
 * result, a model's error, and a refused call (`refused`: the arguments the model proposed, core/run
 * advance), which may carry a secret in any form, and that is often why it was refused.
 */
export function redactTraceData(
  data: Record<string, unknown>,
  ctx: Pick<RunContext, "secrets">,
): Record<string, unknown> {
  return runRedactor(ctx).redactDeep(data);
}
