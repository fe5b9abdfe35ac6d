import {
  makeWebPushSender,
  vapidOf,
  type PushEnv,
  type VapidKey,
  type WebPushSender,
} from "../../../adapters/web-push";
import { scopes, type Scope } from "../../../core/auth";
import { approvalAnswered, approvalNotice, pushTopic, replyNotice, type PushNotice } from "../../../core/push";
import type { RunState } from "../../../core/run";
import { registryStub } from "../../stubs";
import type { RunEvent } from "../chat/live";
import type { RunStore } from "../runs/store";

/** How long a push service keeps a notice for a device that is off: a day, then it is stale. */
const ttlSeconds = 24 * 60 * 60;

export interface PushNoticesDeps {
  env: Env & PushEnv;
  project(): string;
  agent(): string;
  runs: Pick<RunStore, "get">;
  /** The agent's redactor (secrets it holds never reach a notice). */
  redact(text: string): string;
  /** Whether a socket opened with this token is live on the agent: its person is looking at the chat. */
  liveToken(tokenId: string): boolean;
  /** Off the response path: a turn with ten subscribed devices takes the time of one with none. */
  background(work: Promise<unknown>): void;
  now(): number;
}

/**
 * What notifies, as the agent's runs go: an approval waits (every person whose scope may decide it),
 * an approval was answered (their notifications clear), and the reply to a person's message while
 * none of their devices has a socket on the agent. The targets come from the project's registry
 * (revoked devices, other projects' people and muted agents are never among them).
 * @example
 * const push = makePushNotices({ env, project, agent, runs, redact, liveToken, background, now });
 * events.listen((event, runId) => push.onRunEvent(event, runId));
 */
export function makePushNotices(deps: PushNoticesDeps) {
  /** Runs whose approval notices went out, with the scope they went to: their answer clears them. */
  const waiting = new Map<string, Scope>();
  let made: { key: VapidKey; sender: WebPushSender } | null = null;

  async function send(notice: PushNotice, input: { scope: Scope; person?: string; unlessLooking?: boolean }) {
    const vapid = await vapidOf(deps.env);
    if (!vapid) return;
    const registry = registryStub(deps.env, deps.project());
    const { targets, tokensOf } = await registry.pushTargets({
      scope: input.scope,
      agent: deps.agent(),
      ...(input.person ? { person: input.person } : {}),
    });
    const looking = (person: string) => (tokensOf[person] ?? []).some((t) => deps.liveToken(t));
    // One sender while the key stays the same, so its VAPID signatures are reused across notices.
    if (made?.key !== vapid.key)
      made = {
        key: vapid.key,
        sender: makeWebPushSender({ ...vapid, fetch: (url, init) => fetch(url, init), now: deps.now }),
      };
    const { sender } = made;
    const topic = await pushTopic(notice.tag);
    const payload = JSON.stringify(notice);
    const gone: string[] = [];
    await Promise.all(
      targets
        .filter((t) => !(input.unlessLooking && looking(t.person)))
        .map(async (t) => {
          const result = await sender
            .send(t, payload, { ttlSeconds, topic, urgency: notice.clear ? "normal" : "high" })
            .catch(() => ({ kind: "failed" as const, status: 0 }));
          if (result.kind === "gone") gone.push(t.endpoint);
        }),
    );
    if (gone.length) await registry.pushGone(gone);
  }

  function later(work: () => Promise<void>): void {
    deps.background(work().catch((error: unknown) => console.error("push failed", (error as Error)?.message)));
  }

  return {
    onRunEvent(event: RunEvent, runId: string): void {
      if (event.type === "status" && event.status === "waiting_approval") {
        const state = deps.runs.get(runId)?.state as RunState | undefined;
        const pending = state?.calls.filter((c) => c.status === "proposed") ?? [];
        if (!pending.length) return;
        // Only people who may decide every pending call: never a notice one cannot act on.
        const scope = pending
          .map((c) => c.approverScope ?? "approve")
          .reduce((a, b) => (scopes.indexOf(a) >= scopes.indexOf(b) ? a : b));
        waiting.set(runId, scope);
        const notice = approvalNotice({
          project: deps.project(),
          agent: deps.agent(),
          runId,
          tool: pending[0]!.call.name,
        });
        later(() => send(notice, { scope }));
        return;
      }
      if (
        (event.type === "status" || event.type === "done") &&
        waiting.has(runId) &&
        event.status !== "waiting_approval"
      ) {
        const scope = waiting.get(runId)!;
        waiting.delete(runId);
        later(() => send(approvalAnswered({ runId }), { scope }));
      }
      if (event.type === "done" && event.status === "completed" && event.reply) {
        const run = deps.runs.get(runId);
        const person = (run?.state as RunState | undefined)?.origin.name;
        if (!run || !person) return;
        const notice = replyNotice(
          { project: deps.project(), agent: deps.agent(), runId, sessionId: run.sessionId, reply: event.reply.content },
          deps.redact,
        );
        later(() => send(notice, { scope: "chat", person, unlessLooking: true }));
      }
    },
  };
}

export type PushNotices = ReturnType<typeof makePushNotices>;
