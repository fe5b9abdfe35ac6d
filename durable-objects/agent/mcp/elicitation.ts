/** A server's question (`elicitation/create`, form mode) waiting for a person: what it asks and the answer's shape. */
export interface McpQuestion {
  id: string;
  server: string;
  message: string;
  /** The JSON Schema (flat object of primitives, per the MCP spec) the answer's `content` follows. */
  requestedSchema: Record<string, unknown>;
  askedAt: number;
  /** When it is answered `cancel` if no one has answered. */
  expiresAt: number;
}

/** The answer sent back to the server (the MCP spec's ElicitResult). */
export type McpAnswer =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

/** How long a question waits for a person at most: the longest a tool call may run (runtime.limits.toolTimeoutMs). */
export const questionWaitMs = 300_000;

/**
 * The questions an agent's MCP servers asked while one of their tools ran: each waits (in memory:
 * the call it belongs to cannot outlive the object either) until a person who may approve answers
 * it, declines it, or it expires; an expired or aborted one is answered `cancel`, so the call ends
 * cleanly and the server says what became of it.
 * @example
 * const questions = makeMcpQuestions();
 * const answer = questions.ask("travel", { message: "How many seats?", requestedSchema }); // waits
 * questions.answer(questions.list()[0].id, { action: "accept", content: { seats: 2 } }); // true
 */
export function makeMcpQuestions(now: () => number = Date.now) {
  const pending = new Map<string, { question: McpQuestion; settle: (answer: McpAnswer) => void }>();
  return {
    ask(
      server: string,
      request: { message: string; requestedSchema?: Record<string, unknown> },
      signal?: AbortSignal,
    ): Promise<McpAnswer> {
      const id = crypto.randomUUID();
      const askedAt = now();
      return new Promise<McpAnswer>((resolve) => {
        const timer = setTimeout(() => settle({ action: "cancel" }), questionWaitMs);
        const settle = (answer: McpAnswer) => {
          if (!pending.delete(id)) return;
          clearTimeout(timer);
          resolve(answer);
        };
        pending.set(id, {
          question: {
            id,
            server,
            message: request.message,
            requestedSchema: request.requestedSchema ?? { type: "object", properties: {} },
            askedAt,
            expiresAt: askedAt + questionWaitMs,
          },
          settle,
        });
        signal?.addEventListener("abort", () => settle({ action: "cancel" }), { once: true });
      });
    },
    /** The questions waiting now, oldest first. */
    list: (): McpQuestion[] => [...pending.values()].map((entry) => entry.question),
    /** Sends `answer` back for question `id`; false when no such question waits (answered, expired, never asked). */
    answer(id: string, answer: McpAnswer): boolean {
      const entry = pending.get(id);
      if (!entry) return false;
      entry.settle(answer);
      return true;
    },
  };
}

export type McpQuestions = ReturnType<typeof makeMcpQuestions>;
