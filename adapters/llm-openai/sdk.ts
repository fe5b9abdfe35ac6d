// The part of the openai SDK the adapter uses: the client and its error classes. The package's own
// entry also exports the Azure and Bedrock clients and the computer-use toolset, and a dynamic import
// of it keeps every export it has in the worker's bundle (~8 KiB gzip); importing these from the
// SDK's own modules lets the bundler leave the rest out. The client is the same class.
export { OpenAI } from "openai/client";
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai/core/error";
