import { makeSecretDetector, type SecretDetector } from "../core/redaction";
import { outputSecrets } from "../durable-objects/agent/runs/tools";

/**
 * What the worker's exports (an agent in another format, a project file) are cleaned with: every
 * secret an agent of this deployment could hold (the tools' secrets, the admin token, the model
 * keys), in every form the one detector knows (core/redaction). A profile names secrets rather than
 * holding them; this catches a value pasted into a prompt or description.
 */
export function exportRedactor(env: Env): SecretDetector {
  return makeSecretDetector(outputSecrets(env as unknown as Record<string, unknown>, {}));
}
