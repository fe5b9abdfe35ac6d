// Web Push, the pure half: what a notification carries (notice.ts) and which subscriptions the
// deployment will send to (subscription.ts). The sender is adapters/web-push; the subscriptions
// live in the project's registry; the agent decides when to notify (durable-objects/agent/push).
export {
  approvalAnswered,
  approvalNotice,
  behaviorNotice,
  featureDoneNotice,
  isPersonName,
  mcpQuestionNotice,
  mcpQuestionSettled,
  noticeLine,
  noticeLineMax,
  planQuestionAnswered,
  planQuestionNotice,
  pushTopic,
  replyNotice,
  runAllStoppedNotice,
  taskBlockedNotice,
  taskUnblocked,
  waitsForPerson,
  type PushNotice,
} from "./notice";
export {
  pushEndpointRefusal,
  pushServiceHosts,
  pushSubscriptionSchema,
  type PushSubscriptionInput,
} from "./subscription";
export { pushJobSchema, pushQueue, type PushJob } from "./job";
export { audienceReaches, widerScope, type PushAudience } from "./audience";
