export {
  busMessageSchema,
  parseBusMessage,
  makeRequest,
  makeResponse,
  makeErrorReply,
  replyIdOf,
  requestIdOfReply,
  makeCancel,
  cancelIdOf,
  requestIdOfCancel,
  BusMessageError,
  busErrorCodes,
  maxDelegationDepth,
  defaultDeadlineMs,
  type BusMessage,
  type BusRequest,
  type BusReply,
  type BusCancel,
  type BusErrorCode,
  type NewRequest,
} from "./message";
export { checkRequest, retryDelaySeconds, type Refusal } from "./rules";
export {
  fanOutPolicies,
  tieRules,
  combineAll,
  combineFirst,
  combineMajority,
  combineVote,
  normaliseAnswer,
  answered,
  replyLine,
  type FanOutPolicy,
  type FanOutReply,
  type FanOutResult,
  type FanOutOutcome,
  type TieRule,
  type Decision,
} from "./policies";
export { fanOutSteps, askKey, critiquePrompt, revisePrompt, reviewPrompt, redraftPrompt, criticAgrees, verdictOf, type FanOutSpec, type FanOutAsk } from "./fanout-steps";
export { fanOutSpecSchema, maxFanOutTargets } from "./fanout-spec";
export { busLogStates, finalBusStates, stateRank, type BusLogState } from "./log";
