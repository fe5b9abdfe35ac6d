export { base64UrlDecode, base64UrlEncode, decryptPush, encryptPush, freshSenderKeys, p256Jwk } from "./encrypt";
export type { SenderKeys } from "./encrypt";
export { makeWebPushSender, type PushResult, type PushTarget, type WebPushSender } from "./sender";
export { newVapidSecret, readVapidKey, vapidAuthorization, vapidLifetimeSeconds, type VapidKey } from "./vapid";
export { vapidOf, type PushEnv } from "./from-env";
