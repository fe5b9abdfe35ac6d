import type { Context } from "hono";
import type { RequestIdVariables } from "hono/request-id";
import type { Scope } from "../core/auth";

/** Variables the worker's middleware adds to each request. */
export interface AuthVariables {
  /** The project this request acts on (`X-Pantheon-Project` header or `?project=`, default `default`; the path for sockets). */
  project: string;
  /**
   * Who the token belongs to: `admin`, the person's name for a device token an invite made
   * (`ana`), or `token:<token name>`. Never the token itself.
   */
  principal: string;
  /** The person behind a device token (an invite made it), or null for the admin secret and plain tokens. */
  person: string | null;
  /** What the token may do; the admin secret is `admin`. */
  scope: Scope;
  /** The API token's id (null for the admin secret): sockets are tagged with it so revoking closes them. */
  tokenId: string | null;
  /** Set once a route's scope has been checked (its `scope()`, workers/scopes.ts); unchecked `/api` routes need `admin`. */
  scopeChecked: boolean;
  /** The cap of a route that reads its own body (workers/own-body.ts): the /api entrance lets that body through to it. */
  ownBodyCap: number;
}

export type AppEnv = { Bindings: Env; Variables: AuthVariables & RequestIdVariables };
export type AppContext = Context<AppEnv>;
