/**
 * Which behavior a person's message goes to. Pure: the agent's behaviors feature calls it with its
 * script's behaviors and the message.
 *
 * The rule (docs/behaviors.md, the table of modes): a message goes to exactly one behavior, the
 * `:active` or `:persistent` one whose `:when` matches it with the highest `:priority` (ties: the
 * first in the script); `:passive` behaviors never take a message. With none matching, the message
 * is the agent's plain chat turn.
 */

/** A behavior's message condition: every part given must hold. */
export interface MessageWhen {
  /** The text holds one of these (case-insensitive). */
  contains?: string[];
  /** The structured input has each of these fields (`input: { repo: … }`). */
  has?: string[];
}

export interface MessageCandidate {
  mode: "active" | "passive" | "persistent";
  when?: MessageWhen;
  priority?: number;
  paused?: boolean;
}

/** Whether `when` holds for a message (no condition: every message). */
export function whenMatches(
  when: MessageWhen | undefined,
  message: { text: string; input?: Record<string, unknown> },
): boolean {
  if (!when) return true;
  const text = message.text.toLowerCase();
  if (when.contains && !when.contains.some((word) => text.includes(word.toLowerCase()))) return false;
  if (when.has && !when.has.every((field) => message.input?.[field] !== undefined && message.input[field] !== null))
    return false;
  return true;
}

/**
 * The index of the one behavior that takes the message, or -1 for the plain chat turn.
 * @example
 * chooseForMessage([{ mode: "active" }, { mode: "active", when: { contains: ["diff"] }, priority: 5 }], { text: "check this diff" }) // 1
 */
export function chooseForMessage(
  candidates: readonly MessageCandidate[],
  message: { text: string; input?: Record<string, unknown> },
): number {
  let best = -1;
  candidates.forEach((b, i) => {
    if (b.paused || (b.mode !== "active" && b.mode !== "persistent") || !whenMatches(b.when, message)) return;
    if (best === -1 || (b.priority ?? 0) > (candidates[best]!.priority ?? 0)) best = i;
  });
  return best;
}
