export { LlmError, isAbort, isLlmError, isRetryableStatus, scrubSecret } from "./llm-error";
export { makeResilientLlm, type ResilientLlmOptions, type RetryEvent } from "./resilient";
export { estimateMessageTokens, estimateTokens } from "./tokens";
export { makeToolNameCodec, parseToolArguments, type ToolNameCodec } from "./tool-names";
export {
  defaultModelFrom,
  defaultModelNames,
  deploymentOf,
  knownProviders,
  providerAvailability,
  resolveModel,
  secretFix,
  type Deployment,
  type MissingRequirement,
  type ModelRef,
  type ProviderFacts,
  type ResolvedModel,
} from "./resolve";
export { costOf } from "./prices";
