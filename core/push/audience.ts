import { grants, scopes, type Scope } from "../auth";

/**
 * Who in a project has a subscribed device: each person with the widest scope among their
 * subscribed devices' tokens. `version` grows with every change in the registry, so an agent that
 * is sent two copies out of order keeps the newer. An agent holds a copy to skip queueing a notice
 * no device could get (a deployment with push on but no phone subscribed pays nothing per turn).
 */
export interface PushAudience {
  version: number;
  people: Record<string, Scope>;
}

/** The wider of two scopes. */
export const widerScope = (a: Scope, b: Scope): Scope => (scopes.indexOf(a) >= scopes.indexOf(b) ? a : b);

/**
 * Whether a notice for `to` (the people of a scope, or one person) could reach any subscribed device.
 * @example
 * audienceReaches({ version: 1, people: { ana: "chat" } }, { scope: "approve" }); // false
 * audienceReaches({ version: 1, people: { ana: "chat" } }, { scope: "chat", person: "ana" }); // true
 */
export function audienceReaches(audience: PushAudience, to: { scope: Scope; person?: string }): boolean {
  if (to.person) {
    const scope = audience.people[to.person];
    return !!scope && grants(scope, to.scope);
  }
  return Object.values(audience.people).some((scope) => grants(scope, to.scope));
}
