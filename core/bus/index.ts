export {
  busMessageSchema,
  parseBusMessage,
  makeRequest,
  makeResponse,
  makeErrorReply,
  replyIdOf,
  requestIdOfReply,
  BusMessageError,
  busErrorCodes,
  maxDelegationDepth,
  defaultDeadlineMs,
  type BusMessage,
  type BusRequest,
  type BusReply,
  type BusErrorCode,
  type NewRequest,
} from "./message";
export { checkRequest, retryDelaySeconds, type Refusal } from "./rules";
export {
  decide,
  combineAll,
  combineFirst,
  combineMajority,
  combineCritique,
  critiquePrompt,
  normaliseAnswer,
  type FanOutPolicy,
  type FanOutReply,
  type FanOutResult,
  type Decision,
} from "./policies";
export { busLogStates, finalBusStates, stateRank, type BusLogState } from "./log";
