import { grants, scopes, type Scope } from "./scopes";

/**
 * Who a run acts for: the token that started it (or the admin secret, a gateway, a script's
 * configurer), what that token may do, and a name for traces and listings. A run's tool calls are
 * held to `scope` (core/gates scopeGate); it is persisted with the run, so a resumed run keeps it.
 * @example
 * const principal: RunPrincipal = { id: "tok_1", scope: "chat", name: "token:phone" };
 */
export interface RunPrincipal {
  /** A token's id, `admin` for the admin secret, or what stands for a token (`gateway:telegram`, `task:<feature>/<n>`). */
  id: string;
  scope: Scope;
  /** Shown in traces and run listings; never a secret. */
  name: string;
}

/**
 * Whom a run acts for when its record names nobody (a run stored before runs carried a principal,
 * a script configured before configurers were recorded): the least scope, so nothing unknown acts
 * as an operator.
 */
export const unknownPrincipal: RunPrincipal = {
  id: "unknown",
  scope: "chat",
  name: "unknown (recorded before principals)",
};

/**
 * The lower of two scopes: what a delegated run may do when its asker may do `a` and the chain before it `b`.
 * @example
 * lowerScope("admin", "chat"); // "chat"
 */
export function lowerScope(a: Scope, b: Scope): Scope {
  return grants(a, b) ? b : a;
}

/** A scope read from storage or a message: itself when it is one, otherwise the least scope. */
export function scopeOrLeast(value: unknown): Scope {
  return typeof value === "string" && (scopes as readonly string[]).includes(value) ? (value as Scope) : "chat";
}

/**
 * A run started by a messaging gateway acts for whoever writes to the bot or the address: an
 * outsider, so `chat` by design. The operator configured the gateway; they did not vouch for its senders.
 */
export function gatewayPrincipal(kind: "telegram" | "email"): RunPrincipal {
  return { id: `gateway:${kind}`, scope: "chat", name: `${kind} gateway` };
}

/**
 * Of two principals, the one with the lower scope, named for both when they differ: a behavior a
 * person's message set off acts with no more than that person's rights nor its configurer's; a
 * delegated run with no more than its asker's.
 * @example
 * lowerPrincipal({ id: "admin", scope: "admin", name: "admin" }, chatToken).scope; // "chat"
 */
export function lowerPrincipal(a: RunPrincipal, b: RunPrincipal): RunPrincipal {
  if (a.scope === b.scope) return a;
  return grants(a.scope, b.scope)
    ? { ...b, name: `${b.name} (with ${a.name})` }
    : { ...a, name: `${a.name} (with ${b.name})` };
}
