import { makeWebPushSender, vapidOf, type PushEnv, type VapidKey, type WebPushSender } from "../adapters/web-push";
import { pushJobSchema, pushTopic, waitsForPerson, type PushJob } from "../core/push";
import { registryStub } from "../durable-objects/stubs";
import { pushAudienceChanged } from "./push-audience";

/** How long a push service keeps a notice for a device that is off: a day, then it is stale. */
const ttlSeconds = 24 * 60 * 60;

/** One sender per key in the isolate, so its VAPID signatures are reused across batches. */
let made: { key: VapidKey; sender: WebPushSender } | null = null;

function senderOf(vapid: { key: VapidKey; subject: string }): WebPushSender {
  if (made?.key !== vapid.key)
    made = {
      key: vapid.key,
      sender: makeWebPushSender({ ...vapid, fetch: (url, init) => fetch(url, init), now: Date.now }),
    };
  return made.sender;
}

/** Sends one job: the targets from the project's registry, each device's copy encrypted for it, the gone removed. */
async function sendJob(env: Env & PushEnv, job: PushJob): Promise<void> {
  const vapid = await vapidOf(env);
  if (!vapid) return;
  const registry = registryStub(env, job.project);
  const { targets, tokensOf, waiting } = await registry.pushTargets({
    scope: job.scope,
    agent: job.agent,
    ...(job.person ? { person: job.person } : {}),
    ...(waitsForPerson(job.notice.tag) ? { waits: { tag: job.notice.tag, open: !job.notice.clear } } : {}),
  });
  const live = new Set(job.looking ?? []);
  const looking = (person: string) => (tokensOf[person] ?? []).some((t) => live.has(t));
  const sender = senderOf(vapid);
  const topic = await pushTopic(job.notice.tag);
  // Each person's copy carries how many things wait for them: the badge (pwa/src/sw.ts) shows it.
  const payload = (person: string) => JSON.stringify({ ...job.notice, waiting: waiting[person] ?? 0 });
  const gone: string[] = [];
  await Promise.all(
    targets
      .filter((t) => !(job.unlessLooking && looking(t.person)))
      .map(async (t) => {
        const result = await sender
          .send(t, payload(t.person), { ttlSeconds, topic, urgency: job.notice.clear ? "normal" : "high" })
          .catch(() => ({ kind: "failed" as const, status: 0 }));
        if (result.kind === "gone") gone.push(t.endpoint);
      }),
  );
  if (gone.length) {
    await registry.pushGone(gone);
    await pushAudienceChanged(env, job.project);
  }
}

/**
 * The push queue's consumer: each message is one notice for the people it names. A device that does
 * not take it now is not retried (a notice is a glance, and a newer one of its tag replaces it); a
 * registry that cannot be reached retries the message. A malformed message is dropped, loudly.
 */
export async function consumePushJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (queued) => {
      const parsed = pushJobSchema.safeParse(queued.body);
      if (!parsed.success) {
        console.error("push: dropping a message that is not a push job", queued.id, parsed.error.issues[0]?.message);
        return queued.ack();
      }
      try {
        await sendJob(env as Env & PushEnv, parsed.data);
        queued.ack();
      } catch (error) {
        console.warn(`push: job ${queued.id} failed (attempt ${queued.attempts})`, (error as Error)?.message);
        queued.retry({ delaySeconds: Math.min(60, 2 ** queued.attempts) });
      }
    }),
  );
}
