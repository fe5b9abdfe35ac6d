// The part of the Anthropic SDK the adapter uses: the base client and the Messages API. The SDK's
// default export, `Anthropic`, builds beta, files, skills, models, organization and user profiles
// too, which puts their code (the beta tool runners, threads, environments: ~60 KiB gzip) in the
// worker's bundle; from its own modules (the package declares no side effects) only these stay.
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";

export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";

/** `new Anthropic(options)` as far as `messages` goes: the same requests, headers and errors. */
export class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);
}
