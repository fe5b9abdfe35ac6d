import type { Context } from "hono";
import type { RequestIdVariables } from "hono/request-id";

/** Variables the worker's middleware adds to each request. */
export interface AuthVariables {
  /** The project this request acts on (`X-Pantheon-Project` header or `?project=`, default `default`). */
  project: string;
  /** Who the token belongs to: `admin` or `token:<token name>`. Never the token itself. */
  principal: string;
}

export type AppEnv = { Bindings: Env; Variables: AuthVariables & RequestIdVariables };
export type AppContext = Context<AppEnv>;
