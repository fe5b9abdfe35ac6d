export { LlmError, isAbort, isLlmError, isRetryableStatus, scrubSecret } from "./llm-error";
export { makeResilientLlm, type ResilientLlmOptions, type RetryEvent } from "./resilient";
export { estimateMessageTokens, estimateTokens } from "./tokens";
export { makeToolNameCodec, parseToolArguments, type ToolNameCodec } from "./tool-names";
export {
  answeringModelLabel,
  defaultModelFrom,
  defaultModelNames,
  deploymentOf,
  keySourceOf,
  knownProviders,
  providerAvailability,
  resolveModel,
  secretFix,
  type Deployment,
  type KeySource,
  type MissingRequirement,
  type ModelRef,
  type ProviderFacts,
  type ResolvedModel,
} from "./resolve";
export { costOf } from "./prices";
export {
  isModelSetting,
  modelSettingsOf,
  projectModelFacts,
  projectModelSettings,
  type ProjectModelFacts,
  type ProjectModelSetting,
} from "./project-keys";
export {
  admit,
  closedBreaker,
  defaultBreakerPolicy,
  onFailure,
  onSuccess,
  type BreakerAdmission,
  type BreakerPolicy,
  type BreakerRecord,
} from "./breaker";
export { failureKindOf, makeCascadeLlm, type BreakerStore, type CascadeOptions, type CascadeStep } from "./cascade";
export {
  allowedModelsOf,
  maxProjectProviders,
  modelCascadeOf,
  namedProvidersOf,
  providerInputSchema,
  providerKinds,
  providerNameSchema,
  unknownProviderIn,
  type ModelProvider,
  type ProviderInput,
  type ProviderKind,
} from "./providers";
