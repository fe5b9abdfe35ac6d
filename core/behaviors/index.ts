// Pure rules of behaviors: which one a message goes to, and how a spawned child is supervised.
export { chooseForMessage, whenMatches, type MessageCandidate, type MessageWhen } from "./message-choice";
export {
  afterFailure,
  onDoneChoices,
  restartPolicies,
  supervisePolicySchema,
  ttlEndsAt,
  unsupervised,
  type SupervisePolicy,
} from "./supervision";
