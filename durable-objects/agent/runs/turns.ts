import type { Clock } from "../../../core/ports";
import type { Behaviors } from "../behaviors/behaviors";
import type { Emit } from "../chat/live";
import type { ChatInput, TurnOutcome } from "./contracts";
import type { Once } from "./once";
import type { RunStarts } from "./start";

export type { ChatInput, ManualCall } from "./contracts";

/**
 * A person's turn: their message goes to the one behavior it matches (behaviors/), else it is the
 * agent's plain chat run (runs/start.ts). Either way the message is stored once, in their words, with
 * one reply. The top of the run feature: the doors, the gateways and a task's worker start turns here.
 * @example
 * const turns = makeTurns({ clock, behaviors, starts });
 * await turns.turn({ content: "hello", principal }, () => {});
 */
export function makeTurns(deps: {
  clock: Clock;
  behaviors: Pick<Behaviors, "onMessage" | "noteMessage">;
  starts: Pick<RunStarts, "begin">;
  /** Where a message sent with a client id is taken once (runs/once.ts). */
  once?: Once;
}) {
  async function fresh(input: ChatInput, sink: Emit): Promise<TurnOutcome> {
    const arrivedAt = deps.clock.now();
    const handled = await deps.behaviors.onMessage(input, sink);
    const result = handled ?? (await deps.starts.begin(input, sink));
    deps.behaviors.noteMessage(arrivedAt);
    if (!result.userMessage) throw new Error("a turn's run was stored without its request");
    return { ...result, userMessage: result.userMessage };
  }
  return {
    turn(input: ChatInput, sink: Emit): Promise<TurnOutcome> {
      const { clientId } = input;
      return clientId && deps.once ? deps.once.turn({ ...input, clientId }, sink, fresh) : fresh(input, sink);
    },
  };
}

export type Turns = ReturnType<typeof makeTurns>;
