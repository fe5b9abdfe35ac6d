/**
 * An API call that did not succeed, with everything needed to explain it to a person.
 * `status` 0 means the request never reached the server (offline, DNS, connection reset).
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly details?: { issues?: { path: (string | number)[]; message: string }[]; needed?: string; scope?: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Guards by `name` so it survives a second copy of this module (service worker vs page). */
export function isApiError(error: unknown): error is ApiError {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "ApiError";
}

export function isNetworkError(error: unknown): boolean {
  return isApiError(error) && error.status === 0;
}

/** What the person was doing when it failed; the same status reads differently for each. */
export type ErrorContext = "load" | "send" | "sign-in" | "create-agent" | "approve" | "invoke";

/**
 * Turn any failure into a sentence a person understands (never a status code on its own).
 *
 * @example
 * describeError(new ApiError(401, "unauthorized", "bad token"), "sign-in")
 * // "That token was not accepted. Check it and try again, or create a new one with `pantheon tokens create <name> --scope chat`."
 */
export function describeError(error: unknown, context: ErrorContext = "load"): string {
  if (!isApiError(error)) {
    const text = error instanceof Error ? error.message : String(error);
    return `Something went wrong: ${text}`;
  }
  const ref = error.requestId ? ` (reference ${error.requestId})` : "";
  switch (error.status) {
    case 0:
      return context === "send"
        ? "You're offline; your message is queued and will be sent when the connection returns."
        : "You're offline. This will load again when the connection returns.";
    case 401:
      return context === "sign-in"
        ? "That token was not accepted. Check it and try again, or create a new one with `pantheon tokens create <name> --scope chat`."
        : "That token was not accepted any more. Sign out and sign in again with a valid token.";
    case 403:
      return error.details?.needed
        ? `This needs a token with the '${error.details.needed}' scope; yours has '${error.details.scope ?? "less"}'. Ask an operator for one (pantheon tokens create <name> --scope ${error.details.needed}).`
        : "This token is not allowed to do that. Ask an operator for a token with more access.";
    case 404:
      if (error.code === "not_found" && error.message && !/route|path/i.test(error.message))
        return `Not found: ${error.message}`;
      return "This part of Pantheon is not available on this server yet.";
    case 405:
    case 501:
      return "This part of Pantheon is not available on this server yet.";
    case 409:
      return context === "create-agent"
        ? "An agent with that name already exists. Pick another name."
        : `That clashes with something that already exists: ${error.message}`;
    case 400:
    case 422: {
      const issues = error.details?.issues ?? [];
      if (issues.length === 0) return `Please check what you entered: ${error.message}`;
      const list = issues.map((i) => `${i.path.join(".") || "value"} ${i.message}`).join("; ");
      return `Please check what you entered: ${list}.`;
    }
    case 410:
      // A spent or expired sign-in link: the server's words say which and what to do.
      return `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`;
    case 413:
      return "That is too large to send. Shorten it and try again.";
    case 429:
      return "Too many requests just now. Wait a moment and try again.";
    default:
      if (error.status >= 500)
        return `The server had a problem and could not finish this${ref}. Try again in a moment.`;
      return `${error.message}${ref}`;
  }
}
