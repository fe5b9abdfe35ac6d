/**
 * The PWA's own shapes. What the API answers is typed from the worker's routes in ./api.ts (and
 * RunEvent, LiveState from durable-objects/agent/live.ts); nothing here copies a server type.
 */

/** How the tool runner reads a tool's parameters (JSON Schema; the API types them as plain JSON). */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** Something that is fetched: what a view shows while loading, when ready and on failure. */
export type Loadable<T> =
  | { status: "idle" }
  | { status: "loading"; data?: T }
  | { status: "ready"; data: T }
  | { status: "error"; error: string; data?: T };
