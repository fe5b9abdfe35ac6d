export {
  defaultRunLimits,
  effectiveLimits,
  limitsOf,
  modelSettingsSchema,
  runLimitsSchema,
  type ModelSettings,
  type RunLimits,
} from "./limits";
export {
  activeMs,
  isTerminal,
  newRunState,
  runDeadline,
  terminalStatuses,
  type CallStatus,
  type ManualCall,
  type NewRun,
  type RunOrigin,
  type RunCall,
  type RunEffect,
  type RunEvent,
  type RunState,
  type RunStatus,
  type TerminalStatus,
  type TraceKind,
} from "./state";
export { advance } from "./advance";
export { requestOf, type Advanced, type RunDeps } from "./step";
export { interruptedOutcome, isRepeatable, recoverRun, type Recovery } from "./resume";
export { wordPieces } from "./word-pieces";
