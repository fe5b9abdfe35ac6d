// `pantheon chat <agent>`: an interactive chat in the terminal. Replies stream as they are
// written, with each tool call, gate decision and result; a call that needs approval is
// approved or rejected inline; the session's history is printed on entry (the terminal's
// scrollback holds it); `/sessions` picks another session. Ctrl-C cancels the run in progress
// (or waiting for an approval here), and the server cancels the runs it delegated to, down the
// chain; a second Ctrl-C, or Ctrl-D, leaves.
import { ApiError, param, UsageError, type Client } from "../../client.ts";
import { text, type Command } from "../../command.ts";
import { oneLine, time } from "../../format.ts";
import { describe, tell } from "../tell.ts";
import { makeRunView, streamTurn, type TurnEnd } from "../turn.ts";
import { openLive } from "./live.ts";
import { bold, choose, dim, readLine, watchKeys } from "./terminal.ts";

const help = [
  "/sessions        pick another session (or start a new one)",
  "/new [title]     start a new session",
  "/history [n]     show the last n messages of this session again (default 20)",
  "/exit            leave (also Ctrl-D, or Ctrl-C twice)",
  "Ctrl-C while the agent works cancels its run.",
].join("\n");

const unsettled = new Set(["running", "waiting_tool", "waiting_agent", "created"]);

/** Leaving the chat from anywhere in it (Ctrl-C twice, Ctrl-D). */
class Leave extends Error {
  override name = "Leave";
}

interface Session {
  id: string;
  title: string;
}

function makeChat(client: Client, agent: string) {
  const { api, send } = client;
  const route = api.api.agents[":name"];
  const name = param({ name: agent });
  const say = (line = "") => void process.stdout.write(`${line}\n`);

  async function sessions() {
    return (await send(route.sessions.$get(name))).sessions;
  }

  async function newSession(title?: string): Promise<Session> {
    const made = await send(route.sessions.$post({ ...name, json: title ? { title } : {} }));
    return { id: made.id, title: made.title };
  }

  /** The picker: sessions newest first, and a new one. */
  async function pick(current?: string): Promise<Session | undefined> {
    const list = [...(await sessions())].sort((a, b) => b.updatedAt - a.updatedAt);
    const choice = await choose<string>(
      `Session with ${agent}`,
      [
        ...list.map((s) => ({
          name: `${s.title}${s.isDefault ? " (default)" : ""}`,
          value: s.id,
          description: `${s.id}, updated ${time(s.updatedAt)}`,
        })),
        { name: "+ New session", value: "" },
      ],
      current ?? list[0]?.id,
    );
    if (choice === undefined) return undefined;
    if (choice === "") return newSession();
    const found = list.find((s) => s.id === choice)!;
    return { id: found.id, title: found.title };
  }

  async function scrollback(session: Session, limit = 20) {
    const body = await send(route.messages.$get({ ...name, query: { session: session.id, limit: String(limit) } }));
    if (!body.messages.length) return say(dim("(no messages yet in this session)"));
    if (body.nextCursor) say(dim(`(older messages: pantheon history ${agent} --session ${session.id} --limit 200)`));
    for (const m of [...body.messages].reverse())
      say(
        dim(
          `${time(m.createdAt)} ${m.role === "user" ? "you" : m.role === "assistant" ? agent : m.role}: ${describe(m)}`,
        ),
      );
  }

  /** Trace steps after `afterSeq` as the stream shows them; answers the last seq shown. */
  async function showSteps(runId: string, afterSeq: number): Promise<number> {
    const detail = await send(route.runs[":id"].$get(param({ name: agent, id: runId })));
    let last = afterSeq;
    for (const step of detail.trace) {
      if (step.seq <= afterSeq) continue;
      last = step.seq;
      // biome-ignore lint/suspicious/noExplicitAny: a trace step's data differs by step name
      const d = (step.data ?? {}) as Record<string, any>;
      if (step.name === "tool_result")
        say(
          `  ← ${d.tool ?? d.name} ${d.ok === false ? `failed: ${oneLine(d.error, 80)}` : `ok${d.output ? `: ${oneLine(d.output, 70)}` : ""}`}`,
        );
      else if (step.name === "tool_call") say(`  → ${d.tool ?? d.name} ${oneLine(d.arguments, 80)}`);
      else if (step.name === "approval")
        say(`  ${d.approved ? "✓ approved" : "✗ rejected"} ${d.tool ?? ""} by ${d.by}`);
      else if (step.name === "agent_response") say(`  ← ${d.agent ?? d.from ?? "agent"} answered`);
    }
    return last;
  }

  async function replyOf(session: Session, runId: string): Promise<string | undefined> {
    const body = await send(route.messages.$get({ ...name, query: { session: session.id, limit: "10" } }));
    return body.messages.find((m) => m.runId === runId && m.role === "assistant")?.content;
  }

  return { say, sessions, newSession, pick, scrollback, showSteps, replyOf, route, name };
}

export const chat: Command = {
  name: "chat",
  summary: "talk with an agent in the terminal: streamed replies, tool calls, inline approvals, sessions",
  actions: [
    {
      name: "",
      summary: "talk with an agent in the terminal: streamed replies, tool calls, inline approvals, sessions",
      usage: ["<agent> [--session <id>] [--pick]", '<agent> "<message>"   (one turn, as pantheon tell)'],
      options: {
        session: { type: "string", help: "the session to open (default: pick one when the agent has several)" },
        pick: { type: "boolean", help: "open the session picker even when there is one session" },
      },
      async run(context) {
        const [agent, ...message] = context.args;
        if (!agent) throw new UsageError("name the agent to talk to", "chat");
        // `pantheon chat <agent> "<message>"` is the one-shot turn it always was.
        if (message.length) return tell.actions[0]!.run(context);
        if (!process.stdin.isTTY || !process.stdout.isTTY)
          throw new UsageError(
            'chat needs a terminal; for one message from a script use: pantheon tell <agent> "<message>"',
            "chat",
          );
        return interactive(context.client, agent, text(context.values, "session"), Boolean(context.values.pick));
      },
    },
  ],
};

async function interactive(
  client: Client,
  agent: string,
  sessionId: string | undefined,
  forcePick: boolean,
): Promise<number> {
  const chat = makeChat(client, agent);
  const { say, route, name } = chat;
  const profile = await client.send(route.$get(name));
  let session: Session | undefined;
  const list = await chat.sessions();
  if (sessionId) {
    const found = list.find((s) => s.id === sessionId);
    if (!found)
      throw new ApiError(404, {
        code: "not_found",
        message: `session '${sessionId}' of ${agent} does not exist (pantheon sessions ${agent} lists them)`,
      });
    session = { id: found.id, title: found.title };
  } else if (list.length > 1 || forcePick) session = await chat.pick();
  else session = list[0] ? { id: list[0].id, title: list[0].title } : await chat.newSession();
  if (!session) return 0;

  const header = () =>
    say(
      `${bold(`Chat with ${agent}`)} ${dim(`(${profile.description || "no description"}) · session "${session!.title}" · /help · Ctrl-C cancels a run · Ctrl-D leaves`)}`,
    );
  header();
  await chat.scrollback(session);

  const history: string[] = [];
  let interruptedAtPrompt = false;

  /**
   * Runs `work` with Ctrl-C meaning "cancel this run" (its id comes from `runId()`), a second
   * Ctrl-C or Ctrl-D leaving.
   */
  async function cancellable<T>(work: Promise<T>, runId: () => string | undefined): Promise<T> {
    let interrupts = 0;
    let leave: (() => void) | undefined;
    const left = new Promise<never>((_, reject) => (leave = () => reject(new Leave())));
    left.catch(() => {});
    const cancelNow = () => {
      const id = runId();
      if (!id) return setTimeout(cancelNow, 100);
      client.send(route.runs[":id"].cancel.$post(param({ name: agent, id }))).catch((error: Error) => {
        if (!(error instanceof ApiError && error.status === 409)) say(`  (could not cancel: ${error.message})`);
      });
    };
    const stop = watchKeys({
      interrupt() {
        interrupts += 1;
        if (interrupts > 1) return leave?.();
        say(`\n  ${dim("cancelling the run… (Ctrl-C again to leave)")}`);
        cancelNow();
      },
      eof: () => leave?.(),
    });
    try {
      return await Promise.race([work, left]);
    } finally {
      stop();
    }
  }

  const live = openLive(client, agent);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Shows a run's events from the agent's socket as they happen, until `stop`. */
  function watch(runId: string) {
    const view = makeRunView({ text: (chunk) => void process.stdout.write(chunk), line: (l) => say(dim(l)) });
    let seen = 0;
    let ended: { status: string; reply: string | null } | undefined;
    let resolveEnd: (end: { status: string; reply: string | null }) => void = () => {};
    const end = new Promise<{ status: string; reply: string | null }>((resolve) => (resolveEnd = resolve));
    const stop = live.follow(runId, (type, data) => {
      seen += 1;
      const result = view.see(type, data);
      if (result) {
        ended = result;
        resolveEnd(result);
      }
    });
    return {
      end,
      stop,
      get seen() {
        return seen;
      },
      get ended() {
        return ended;
      },
      /** After the HTTP answer: the socket's last frames may still be on their way. */
      async settle(): Promise<void> {
        if (ended || !live.open || seen === 0) return;
        await Promise.race([end, sleep(2000)]);
      },
    };
  }

  /** After the stream: approvals inline, waits for other agents followed, the reply shown. */
  async function settle(end: TurnEnd, replyShown: boolean): Promise<void> {
    let state = { status: end.status, runId: end.runId };
    let seq = 0;
    for (;;) {
      if (state.status === "completed") {
        if (!replyShown) {
          const reply = await chat.replyOf(session!, state.runId);
          if (reply) say(reply);
        }
        return;
      }
      if (state.status === "cancelled") return say(dim(`  run ${state.runId} cancelled.`));
      if (state.status === "failed") {
        const detail = await client.send(route.runs[":id"].$get(param({ name: agent, id: state.runId })));
        return say(`  run ${state.runId} failed: ${detail.run.error ?? "see pantheon runs show"}`);
      }
      if (state.status === "waiting_approval") {
        const detail = await client.send(route.runs[":id"].$get(param({ name: agent, id: state.runId })));
        seq = Math.max(seq, ...detail.trace.map((s) => s.seq));
        const pending = detail.run.pending ?? [];
        if (!pending.length) return;
        for (const call of pending) {
          const decision = await choose<"approve" | "reject" | "later" | "cancel">(
            `${agent} wants to run ${bold(call.tool)} ${oneLine(call.arguments, 80)}`,
            [
              { name: "Approve", value: "approve", description: "let this call run" },
              { name: "Reject", value: "reject", description: "refuse it; the model is told" },
              {
                name: "Decide later",
                value: "later",
                description: `leave it waiting (pantheon runs approve ${agent} ${state.runId} --call ${call.callId})`,
              },
            ],
            undefined,
            "cancel",
          );
          // Ctrl-C here, as everywhere in a run: the run this chat started is cancelled (and what it delegated).
          if (decision === "cancel") {
            const ended = await client
              .send(route.runs[":id"].cancel.$post(param({ name: agent, id: state.runId })))
              .catch((error: Error) => say(`  (could not cancel: ${error.message})`));
            return say(dim(`  run ${state.runId} ${ended ? ended.status : "left waiting"}.`));
          }
          if (decision === undefined || decision === "later")
            return say(
              dim(`  left waiting: pantheon runs approve|reject ${agent} ${state.runId} --call ${call.callId}`),
            );
          say(dim(`  ${decision === "approve" ? "✓ approved" : "✗ rejected"} ${call.tool}`));
          // The run goes on inside the approval request; its events come over the socket meanwhile.
          const watching = watch(state.runId);
          const decided = client.send(
            route.runs[":id"].approval.$post({
              ...param({ name: agent, id: state.runId }),
              json: {
                decision,
                callId: call.callId,
                ...(decision === "reject" ? { reason: "rejected in pantheon chat" } : {}),
              },
            }),
          );
          let run: Awaited<typeof decided>;
          try {
            run = await cancellable(decided, () => state.runId);
            await watching.settle();
          } finally {
            watching.stop();
          }
          if (watching.seen === 0) seq = await chat.showSteps(state.runId, seq);
          else
            seq = Math.max(
              seq,
              ...(await client.send(route.runs[":id"].$get(param({ name: agent, id: state.runId })))).trace.map(
                (s) => s.seq,
              ),
            );
          replyShown = Boolean(watching.ended);
          state = { status: run.status, runId: state.runId };
          if (state.status !== "waiting_approval") break;
        }
        continue;
      }
      if (unsettled.has(state.status)) {
        seq = await chat.showSteps(state.runId, seq);
        say(
          dim(
            `  ${state.status === "waiting_agent" ? "waiting for another agent's answer" : "working"}… (Ctrl-C cancels)`,
          ),
        );
        const runId = state.runId;
        const watching = watch(runId);
        let polling = true;
        // The socket shows the rest as it happens; polling the run is the fallback when it cannot.
        const polled = (async () => {
          while (polling) {
            await sleep(1000);
            const detail = await client.send(route.runs[":id"].$get(param({ name: agent, id: runId })));
            if (!unsettled.has(detail.run.status)) return detail.run.status;
          }
          return "";
        })();
        let status: string;
        try {
          status = await cancellable(Promise.race([watching.end.then((e) => e.status), polled]), () => runId);
          await watching.settle();
        } finally {
          polling = false;
          watching.stop();
        }
        if (watching.seen === 0) seq = await chat.showSteps(runId, seq);
        replyShown = Boolean(watching.ended);
        state = { status, runId };
        continue;
      }
      return say(dim(`  run ${state.runId} is ${state.status}.`));
    }
  }

  async function turn(content: string) {
    let runId: string | undefined;
    say(bold(`${agent}:`));
    const work = streamTurn(
      client,
      agent,
      { content, session: session!.id },
      { text: (chunk) => void process.stdout.write(chunk), line: (l) => say(dim(l)) },
      undefined,
      (id) => (runId = id),
    );
    const end = await cancellable(work, () => runId);
    // The streamed reply is already on screen; a reply arriving after a wait is shown by settle.
    await settle(end, end.status === "completed");
  }

  try {
    for (;;) {
      const read = await readLine(`${bold("you")} › `, history);
      if ("eof" in read) {
        say();
        break;
      }
      if ("interrupt" in read) {
        if (interruptedAtPrompt) break;
        interruptedAtPrompt = true;
        say(dim("(Ctrl-C again or Ctrl-D to leave)"));
        continue;
      }
      interruptedAtPrompt = false;
      const line = read.line.trim();
      if (!line) continue;
      const [word, ...rest] = line.split(/\s+/);
      if (word === "/exit" || word === "/quit") break;
      if (word === "/help") {
        say(help);
        continue;
      }
      try {
        if (word === "/sessions") {
          const picked = await chat.pick(session.id);
          if (picked) {
            session = picked;
            header();
            await chat.scrollback(session);
          }
          continue;
        }
        if (word === "/new") {
          session = await chat.newSession(rest.join(" ") || undefined);
          header();
          continue;
        }
        if (word === "/history") {
          await chat.scrollback(session, Math.min(200, Math.max(1, Number(rest[0]) || 20)));
          continue;
        }
        await turn(line);
      } catch (error) {
        if (error instanceof Leave) throw error;
        // A refused message (or a dropped connection) is said, and the chat goes on.
        if (error instanceof ApiError) say(`Error: ${error.message}`);
        else throw error;
      }
    }
  } catch (error) {
    if (!(error instanceof Leave)) throw error;
  } finally {
    // An open socket would keep the process alive after an error is reported.
    live.close();
  }
  say(dim("bye"));
  // Stdin may still hold a reference (a cancelled menu, a stream left behind): leave now.
  process.exit(0);
}
