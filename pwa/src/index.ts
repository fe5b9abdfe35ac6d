/** The PWA's public pieces, for tests and for anyone embedding the components. */
export { makeApi, type Api, type ApiOptions } from "./api";
export type * from "./api";
export { makeController, type Controller, type ControllerDeps } from "./controller";
export { ApiError, describeError, isApiError, isNetworkError, type ErrorContext } from "./errors";
export { makeOutbox, type Outbox, type QueuedMessage } from "./outbox";
export { parseHash, toHash, type Route } from "./router";
export { applyRunEvent, mergeHistory, lastSeenId, type ChatItem } from "./chat-state";
export { connectLive, type LiveConnection, type LiveOptions } from "./live";
export type { AppState, ChatState, Theme } from "./state";
export type * from "./types";
