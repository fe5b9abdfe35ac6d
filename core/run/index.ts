export { defaultRunLimits, effectiveLimits, modelSettingsSchema, runLimitsSchema, type ModelSettings, type RunLimits } from "./limits";
export {
  activeMs,
  isTerminal,
  newRunState,
  runDeadline,
  terminalStatuses,
  type CallStatus,
  type NewRun,
  type RunCall,
  type RunEffect,
  type RunEvent,
  type RunState,
  type RunStatus,
  type TerminalStatus,
  type TraceKind,
} from "./state";
export { advance, type Advanced, type RunDeps } from "./advance";
export { resumeEffects } from "./resume";
