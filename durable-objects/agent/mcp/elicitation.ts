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
  /** The run whose tool call the server asked in, when known. */
  runId?: string;
}

/** The answer sent back to the server (the MCP spec's ElicitResult). */
export type McpAnswer =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

/** The run's tool call a question was asked in: the run's id and the call's. */
export interface McpQuestionCall {
  run: string;
  id: string;
}

/** What became of a person's answer: sent to the server, kept for the call made again, or refused. */
export type McpAnswerOutcome =
  | { ok: true; sent: boolean }
  | { ok: false; code: "not_found" | "conflict"; message: string };

/** How long a question waits for a person at most: the longest a tool call may run (runtime.limits.toolTimeoutMs). */
export const questionWaitMs = 300_000;

/** The object's storage as the questions use it (a Durable Object's own storage fits). */
export interface McpQuestionStore {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
  list<T>(options: { prefix: string }): Promise<Map<string, T>>;
}

export interface McpQuestionsDeps {
  store: McpQuestionStore;
  /**
   * Whether a run still waits on its call's outcome (the call neither finished nor failed, the run
   * not over): after a restart, a question stays in the inbox only while the call that asked it may
   * be made again.
   */
  callOpen(call: McpQuestionCall): boolean;
  /**
   * A question began to wait for a person (`open`), or waits no more: answered, declined, expired,
   * or its call ended without it. Told once each way per question (push notifies and clears by it).
   */
  told?(question: McpQuestion, open: boolean): void;
  now?: () => number;
}

/**
 * A question as stored: the call it was asked in, an answer given while no call waited for it, and
 * whether that call ended without it (kept until it expires, so a late answer is told so).
 */
interface StoredQuestion {
  question: McpQuestion;
  call?: McpQuestionCall;
  answer?: McpAnswer;
  ended?: true;
}

const prefix = "pantheon:mcp:question:";
const keyOf = (id: string) => `${prefix}${id}`;

/**
 * The questions an agent's MCP servers asked while one of their tools ran. Each is kept in the
 * object's storage (the same place as reauthorise.ts' state, which needs no migration) so that it
 * outlives an eviction, and waits until a person who may approve answers it, declines it, or it
 * expires; an expired or aborted one is answered `cancel`, so the call ends cleanly and the server
 * says what became of it.
 *
 * An eviction ends the call's request to the server, so the question's waiter is gone. The run
 * carries on from its record (core/run/resume.ts): a repeatable call is made again, and when its
 * server asks the same question in it, the stored one is taken up (same id): an answer the person
 * gave meanwhile goes to the server at once, or the question waits again. A call that cannot be
 * repeated ends as interrupted in the run; its question then leaves the inbox, and an answer to it
 * is refused (409) saying the server was not told.
 * @example
 * const questions = makeMcpQuestions({ store: ctx.storage, callOpen: () => true });
 * const answer = questions.during("travel", { run, id }, () => client.callTool(...)); // its server asks
 * await questions.answer((await questions.list())[0].id, { action: "accept", content: { seats: 2 } });
 */
export function makeMcpQuestions(deps: McpQuestionsDeps) {
  const now = deps.now ?? Date.now;
  const live = new Map<string, (answer: McpAnswer) => void>();
  /** The tool calls in flight on each server, newest last: a question a server asks belongs to its newest call. */
  const calling = new Map<string, McpQuestionCall[]>();
  const stored = async () => [...(await deps.store.list<StoredQuestion>({ prefix })).values()];
  const told = (question: McpQuestion, open: boolean) => deps.told?.(question, open);
  const sameCall = (a: McpQuestionCall | undefined, b: McpQuestionCall | undefined) =>
    Boolean(a && b && a.run === b.run && a.id === b.id);

  async function ask(
    server: string,
    request: { message: string; requestedSchema?: Record<string, unknown> },
    signal?: AbortSignal,
  ): Promise<McpAnswer> {
    const call = calling.get(server)?.at(-1);
    // The same call made again after a restart asks again: it takes up the question asked before.
    const before = call
      ? (await stored()).find(
          (row) =>
            sameCall(row.call, call) &&
            row.question.server === server &&
            row.question.message === request.message &&
            !live.has(row.question.id),
        )
      : undefined;
    if (before?.answer) {
      // Its notice cleared when the person answered (answer below): nothing to tell.
      await deps.store.delete(keyOf(before.question.id));
      return before.answer;
    }
    const askedAt = now();
    const question: McpQuestion = {
      id: before?.question.id ?? crypto.randomUUID(),
      server,
      message: request.message,
      requestedSchema: request.requestedSchema ?? { type: "object", properties: {} },
      askedAt: before?.question.askedAt ?? askedAt,
      expiresAt: askedAt + questionWaitMs,
      ...(call ? { runId: call.run } : {}),
    };
    const { id } = question;
    await deps.store.put<StoredQuestion>(keyOf(id), { question, ...(call ? { call } : {}) });
    // Taken up after a restart, it was told already and still waits: its notice stands.
    if (!before) told(question, true);
    return new Promise<McpAnswer>((resolve) => {
      const timer = setTimeout(() => settle({ action: "cancel" }), questionWaitMs);
      const settle = (answer: McpAnswer) => {
        if (!live.delete(id)) return;
        clearTimeout(timer);
        void deps.store.delete(keyOf(id));
        told(question, false);
        resolve(answer);
      };
      live.set(id, settle);
      signal?.addEventListener("abort", () => settle({ action: "cancel" }), { once: true });
    });
  }

  /**
   * A question with no call waiting for it (asked before the object restarted): kept while its call
   * may be made again, marked ended once it cannot, removed once expired. True when it still waits
   * for a person.
   */
  async function waitsWithoutCall(row: StoredQuestion): Promise<boolean> {
    if (row.question.expiresAt <= now()) {
      await deps.store.delete(keyOf(row.question.id));
      // Answered or ended, its notice was cleared then.
      if (!row.answer && !row.ended) told(row.question, false);
      return false;
    }
    if (row.ended) return false;
    if (!row.call || !deps.callOpen(row.call)) {
      await deps.store.put<StoredQuestion>(keyOf(row.question.id), { ...row, ended: true });
      if (!row.answer) told(row.question, false);
      return false;
    }
    return !row.answer;
  }

  return {
    ask,
    /** Runs `fn` (a tool call on `server`) with the questions its server asks meanwhile linked to `call`. */
    async during<T>(server: string, call: McpQuestionCall | undefined, fn: () => Promise<T>): Promise<T> {
      if (!call) return fn();
      const calls = calling.get(server) ?? [];
      calling.set(server, [...calls, call]);
      try {
        return await fn();
      } finally {
        const left = (calling.get(server) ?? []).filter((c) => c !== call);
        if (left.length) calling.set(server, left);
        else calling.delete(server);
      }
    },
    /** The questions waiting for a person now, oldest first (those asked before a restart whose call may still ask again too). */
    async list(): Promise<McpQuestion[]> {
      const waiting: McpQuestion[] = [];
      for (const row of await stored()) {
        if (live.has(row.question.id) || (await waitsWithoutCall(row))) waiting.push(row.question);
      }
      return waiting.sort((a, b) => a.askedAt - b.askedAt);
    },
    /**
     * Sends `answer` back for question `id`. Asked before a restart: kept for the call made again
     * (`sent: false`), or refused when that call ended without it (conflict) or it expired (not found).
     */
    async answer(id: string, answer: McpAnswer): Promise<McpAnswerOutcome> {
      const settle = live.get(id);
      if (settle) {
        settle(answer);
        await deps.store.delete(keyOf(id));
        return { ok: true, sent: true };
      }
      const row = await deps.store.get<StoredQuestion>(keyOf(id));
      const missing = {
        ok: false,
        code: "not_found",
        message: `no MCP question '${id}' waits for an answer (answered, expired or never asked)`,
      } as const;
      if (!row || (row.answer && !row.ended)) return missing;
      if (row.question.expiresAt <= now()) {
        await deps.store.delete(keyOf(id));
        if (!row.ended) told(row.question, false);
        return missing;
      }
      if (!(await waitsWithoutCall(row)))
        return {
          ok: false,
          code: "conflict",
          message:
            `the tool call that asked MCP question '${id}' ended when the agent restarted, before it was answered: ` +
            `the server '${row.question.server}' was not sent the answer (the run says what became of the call)`,
        };
      await deps.store.put<StoredQuestion>(keyOf(id), { ...row, answer });
      told(row.question, false);
      return { ok: true, sent: false };
    },
  };
}

export type McpQuestions = ReturnType<typeof makeMcpQuestions>;
