import { afterEach, describe, expect, it, vi } from "vitest";
import { makeMcpQuestions, questionWaitMs } from "../../durable-objects/agent/mcp";
import { answer, askedQuestion, askingAgent } from "../mcp/asking-kit";
import { device, notices, recorded, until } from "./devices";

// An MCP server's question (elicitation) notifies, like the planner's: the people who may answer it
// (approve scope) are told, tagged per question, and their notification clears once it waits no more.

describe("an MCP server's question notifies", () => {
  it("the people who may approve, tagged per question, never a chat-scope person nor another project's; answered, it clears", async () => {
    const approver = await device("approve");
    const chatter = await device("chat");
    const elsewhere = await device("admin", "push-elsewhere");
    const { agent } = await askingAgent();
    const { turn, question } = await askedQuestion(agent);
    const [told] = await until(
      () => notices(approver),
      (n) => n.length > 0,
      "the question's notice",
    );
    // The server's own words stay out of the notice: it opens the inbox, where the form is.
    expect(told).toMatchObject({
      title: `${agent}: the MCP server travel asks you`,
      body: "A question waits for your answer.",
      url: "/#/approvals",
      tag: `question:mcp:${agent}:${question.id}`,
    });
    expect(JSON.stringify(told)).not.toContain("seats");

    expect((await answer(agent, question.id, { action: "accept", content: { seats: 2 } })).status).toBe(204);
    expect(((await (await turn).json()) as any).status).toBe("completed");
    const both = await until(
      () => notices(approver),
      (n) => n.length > 1,
      "the clearing notice",
    );
    expect(both[1]).toMatchObject({ tag: `question:mcp:${agent}:${question.id}`, clear: true });
    // The approver's pushes (open, then clear) went out in the same batches as anyone else's would.
    expect(await recorded(chatter)).toEqual([]);
    expect(await recorded(elsewhere)).toEqual([]);
  });

  it("declined, its notification clears too", async () => {
    const approver = await device("admin");
    const { agent } = await askingAgent();
    const { turn, question } = await askedQuestion(agent);
    await until(
      () => notices(approver),
      (n) => n.length === 1,
      "the question's notice",
    );
    expect((await answer(agent, question.id, { action: "decline" })).status).toBe(204);
    await turn;
    const both = await until(
      () => notices(approver),
      (n) => n.length === 2,
      "the clearing notice",
    );
    expect(both.map((n) => [n.tag, n.clear ?? false])).toEqual([
      [`question:mcp:${agent}:${question.id}`, false],
      [`question:mcp:${agent}:${question.id}`, true],
    ]);
  });
});

/** The object's storage as the questions use it, in memory. */
function memoryStore() {
  const rows = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => rows.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => void rows.set(key, value),
    delete: async (key: string) => rows.delete(key),
    list: async <T>({ prefix }: { prefix: string }) =>
      new Map([...rows].filter(([key]) => key.startsWith(prefix))) as Map<string, T>,
  };
}

describe("what a server's question tells (open, then no longer waiting), once each way", () => {
  afterEach(() => void vi.useRealTimers());

  it("a question no one answers expires: the server hears cancel and its notice is cleared", async () => {
    vi.useFakeTimers();
    const told: [string, boolean][] = [];
    const questions = makeMcpQuestions({
      store: memoryStore(),
      callOpen: () => true,
      told: (q, open) => void told.push([q.server, open]),
    });
    const asked = questions.ask("travel", { message: "How many seats?" });
    await vi.advanceTimersByTimeAsync(0);
    expect(told).toEqual([["travel", true]]);
    await vi.advanceTimersByTimeAsync(questionWaitMs);
    expect(await asked).toEqual({ action: "cancel" });
    expect(told).toEqual([
      ["travel", true],
      ["travel", false],
    ]);
  });

  it("a question taken up by its call made again after a restart is not told again; its answer clears it once", async () => {
    const store = memoryStore();
    const call = { run: "run-1", id: "call-1" };
    const first: boolean[] = [];
    const before = makeMcpQuestions({ store, callOpen: () => true, told: (_q, open) => void first.push(open) });
    // The first instance's wait is ended at the end of the test (its object is gone by then).
    const gone = new AbortController();
    void before.during("travel", call, () => before.ask("travel", { message: "How many seats?" }, gone.signal));
    await until(
      async () => first,
      (t) => t.length === 1,
      "the first telling",
    );
    // A new instance over the same storage (the object restarted): the call is made again and asks again.
    const after: boolean[] = [];
    const restarted = makeMcpQuestions({ store, callOpen: () => true, told: (_q, open) => void after.push(open) });
    const again = restarted.during("travel", call, () => restarted.ask("travel", { message: "How many seats?" }));
    const [waiting] = await until(
      () => restarted.list(),
      (q) => q.length === 1,
      "the question taken up",
    );
    expect(after).toEqual([]);
    expect(await restarted.answer(waiting!.id, { action: "decline" })).toEqual({ ok: true, sent: true });
    expect(await again).toEqual({ action: "decline" });
    expect(after).toEqual([false]);
    gone.abort();
  });

  it("a question whose call ended in a restart clears once, when it is next listed", async () => {
    const store = memoryStore();
    const call = { run: "run-2", id: "call-2" };
    const first: boolean[] = [];
    const before = makeMcpQuestions({ store, callOpen: () => true, told: (_q, open) => void first.push(open) });
    // The first instance's wait is ended at the end of the test (its object is gone by then).
    const gone = new AbortController();
    void before.during("travel", call, () => before.ask("travel", { message: "How many seats?" }, gone.signal));
    await until(
      async () => first,
      (t) => t.length === 1,
      "the first telling",
    );
    const after: boolean[] = [];
    const restarted = makeMcpQuestions({ store, callOpen: () => false, told: (_q, open) => void after.push(open) });
    expect(await restarted.list()).toEqual([]);
    expect(await restarted.list()).toEqual([]);
    expect(after).toEqual([false]);
    gone.abort();
  });
});
