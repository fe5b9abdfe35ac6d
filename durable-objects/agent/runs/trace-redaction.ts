import { makeSecretDetector } from "../../../core/redaction";
import { redactDeep } from "../../../core/tools";
import type { RunContext } from "./contracts";

/**
 * A trace step's data as it is written: every secret value the tools hold is redacted, and a refused
 * call (`refused`: the arguments the model proposed, core/run advance) goes through the secret
 * detector as well — it may carry a secret in any form, and that is often why it was refused.
 */
export function redactTraceData(
  data: Record<string, unknown>,
  ctx: Pick<RunContext, "tools" | "secrets">,
): Record<string, unknown> {
  const plain = redactDeep(data, Object.values(ctx.tools.secrets)) as Record<string, unknown>;
  if (plain.refused) plain.refused = makeSecretDetector(ctx.secrets).redactDeep(plain.refused);
  return plain;
}
