/**
 * Pantheon's error family. Each error carries a stable `code` and the HTTP status it maps to;
 * only the worker's `onError` turns them into responses. Guards check `name`/`code`, not
 * `instanceof`, so they survive duplicate module copies and Durable Object RPC boundaries.
 */

export type ErrorCode =
  | "bad_request"
  | "validation_failed"
  | "invalid_project_file"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "project_not_found"
  | "conflict"
  /** Something that existed is no longer usable: an expired or already used sign-in link. */
  | "gone"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "gate_rejected"
  /** An agent's tool, called by hand on a person's behalf, refused: the message is the tool's reason. */
  | "tool_refused"
  | "script_invalid"
  | "model_failed"
  | "tool_failed"
  | "bad_gateway"
  | "not_configured"
  | "internal";

const statusOf: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  /** A project file refused whole; each problem carries its JSON path (core/projects). */
  invalid_project_file: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  /** X-Pantheon-Project (or a path) names a project that was never created (`POST /api/projects`). */
  project_not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  gate_rejected: 422,
  tool_refused: 422,
  script_invalid: 400,
  model_failed: 502,
  tool_failed: 502,
  /** A service the operator configured (e.g. the Telegram Bot API) refused or did not answer. */
  bad_gateway: 502,
  /** The deployment lacks what the request needs (e.g. PANTHEON_SECRETS_KEY): the message says what to set. */
  not_configured: 503,
  internal: 500,
};

/** One problem with one field of the input: `path` as segments, `message` says what is allowed. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

export class PantheonError extends Error {
  override readonly name = "PantheonError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options?: { details?: Record<string, unknown>; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = statusOf[code];
    this.details = options?.details;
  }

  /** The plain shape that crosses Durable Object RPC (`{ ok: false, ... }`). */
  toFailure(): Failure {
    return { ok: false, code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/** What a Durable Object method returns instead of throwing a domain error across RPC. */
export interface Failure {
  ok: false;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type Result<T> = { ok: true; value: T } | Failure;

export function isPantheonError(error: unknown): error is PantheonError {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "PantheonError";
}

/** Rebuilds the domain error at the caller's side of an RPC boundary. */
/**
 * Runs `fn`, turning a thrown PantheonError into a Failure so it survives Durable Object RPC (only
 * standard Errors keep their name there); any other error propagates. The stub side rebuilds the
 * domain error with `unwrap`.
 */
export async function resultOf<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (isPantheonError(error)) return error.toFailure();
    throw error;
  }
}

export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new PantheonError(result.code, result.message, result.details ? { details: result.details } : undefined);
}

export function notFound(what: string, name: string): PantheonError {
  return new PantheonError("not_found", `${what} '${name}' does not exist`, { details: { [what]: name } });
}

/** The command that lists a project's agents: the hint every door gives with an unknown agent. */
export const listAgentsHint = "pantheon agents list";

/** The words every door says for an agent the project does not have (the API, /v1, MCP, AG-UI, A2A, sockets, the bus, the CLI). */
export const unknownAgentMessage = (agent: string, project: string) =>
  `agent '${agent}' does not exist in project '${project}'`;

/**
 * An agent the project does not have: one message and one 404 on every door, with the command that
 * lists the agents there are as its hint.
 * @example
 * unknownAgent("nosuch", "default").message // "agent 'nosuch' does not exist in project 'default'"
 */
export function unknownAgent(agent: string, project: string): PantheonError {
  return new PantheonError("not_found", unknownAgentMessage(agent, project), {
    details: { agent, project, hint: listAgentsHint },
  });
}

export function validationFailed(issues: FieldIssue[], message = "the request is not valid"): PantheonError {
  return new PantheonError("validation_failed", message, { details: { issues } });
}

/**
 * A JSON path (`$.agents.main.tools[0]`; keys that are not identifiers are quoted: `$.agents["a b"]`),
 * the way issues in uploaded documents (project files, tool lists) name where they are.
 * @example
 * jsonPath(["agents", "main", "tools", 0]) // "$.agents.main.tools[0]"
 */
export function jsonPath(path: readonly PropertyKey[], root = "$"): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    const name = String(key);
    return /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(name) ? `${out}.${name}` : `${out}[${JSON.stringify(name)}]`;
  }, root);
}
