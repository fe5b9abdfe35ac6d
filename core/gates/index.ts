export { customGateKinds, customGateSpecSchema, type CustomGateKind, type CustomGateSpec } from "./gate-spec";
export {
  runGates,
  type Approval,
  type Gate,
  type GateContext,
  type GateDecision,
  type GateOutcome,
  type GateProposal,
  type GateRecord,
  type GateRejection,
  type RunProgress,
} from "./gate";
export { rateKey, secondsUntilToken, takeToken, type RateLimit, type TokenBucket } from "./rate-limit";
export {
  allowlistGate,
  approvalGate,
  budgetExceeded,
  budgetGate,
  builtinGates,
  rateLimitGate,
  schemaGate,
} from "./builtin";
export { checksToolCalls, compileCustomGates, makeCustomGate } from "./custom";
export {
  compileDenyPattern,
  denyPatternExpected,
  denyPatternProblems,
  type DenyMatcher,
  type PatternCheck,
} from "./pattern";
export { findSecretLeak, minSecretLength, type SecretLeak } from "./secret-leak";
export { gateTargets, outputKinds, type GateTarget, type OutputKind } from "./gate-spec";
export {
  agentOutputGates,
  checkOutput,
  compileOutputGates,
  defaultOutputSizes,
  outputNames,
  outputSizeGate,
  planOutputCalls,
  secretLeakGate,
  toolOutputs,
  type NamedSecret,
  type OutputGate,
  type OutputProposal,
} from "./output";
export { approverRefusal, beyondScopeChoices, scopeGate, toolScope, type BeyondScope } from "./scope";
export {
  gatedKeep,
  gatedWrite,
  modelOutputSinks,
  type GatedWrite,
  type ModelOutputSink,
  type OutputScreen,
} from "./sinks";
