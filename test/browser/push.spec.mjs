// Push notifications in Chromium at phone size, through the real service worker: a push delivered
// to it (the DevTools protocol's ServiceWorker.deliverPushMessage, as a push service would) shows a
// notification with the notice's title, line and tag; a second notice of the same tag replaces the
// first; a `clear` notice of that tag closes it. The payload is the one the agent builds
// (core/push approvalNotice), so what a phone shows is what the server sends.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, launchSignedIn } from "./harness.mjs";

let b;
let cdp;
let registrationId;

before(async () => {
  b = await launchSignedIn({ viewport: PHONE, permissions: ["notifications"] });
  // The service worker controls the page once it is active.
  await b.page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  cdp = await b.context.newCDPSession(b.page);
  // A push is delivered to a version that has finished activating: `ready` resolves while the
  // worker may still be activating, and a push sent then was seen lost on a loaded CI machine.
  const ours = new Set();
  const activated = new Promise((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      for (const r of registrations)
        if (r.scopeURL.startsWith(new URL(b.page.url()).origin) && !r.isDeleted) ours.add(r.registrationId);
    });
    cdp.on("ServiceWorker.workerVersionUpdated", ({ versions }) => {
      const ready = versions.find((v) => ours.has(v.registrationId) && v.status === "activated");
      if (ready) resolve(ready.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  registrationId = await activated;
});
after(async () => {
  await b?.close();
});

const origin = () => new URL(b.page.url()).origin;
const push = (notice) =>
  cdp.send("ServiceWorker.deliverPushMessage", { origin: origin(), registrationId, data: JSON.stringify(notice) });
/** The notifications the service worker shows now, as the page's registration lists them. */
const shown = () =>
  b.page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      url: n.data?.url,
    })),
  );
async function until(read, ok, what) {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (ok(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await read())}`);
}

test("a pushed approval shows a notification with its title, line and tag", async () => {
  const notice = {
    title: "helper asks to use clock.now",
    body: "An approval waits for you.",
    url: "/#/agents/helper/runs/run-1",
    tag: "approval:run-1",
  };
  await push(notice);
  const list = await until(shown, (l) => l.some((n) => n.tag === notice.tag), "the notification");
  assert.deepEqual(
    list.filter((n) => n.tag === notice.tag),
    [notice],
  );
});

test("a newer notice of the same tag replaces the older; another tag stands beside it", async () => {
  await push({ title: "helper replied", body: "first", url: "/#/agents/helper/chat", tag: "reply:s1" });
  await push({ title: "helper replied", body: "second", url: "/#/agents/helper/chat", tag: "reply:s1" });
  const list = await until(shown, (l) => l.some((n) => n.body === "second"), "the newer reply");
  assert.deepEqual(
    list.filter((n) => n.tag === "reply:s1").map((n) => n.body),
    ["second"],
  );
  assert.ok(
    list.some((n) => n.tag === "approval:run-1"),
    "the approval's notification is still shown",
  );
});

test("an approval answered elsewhere clears its notification, and only its", async () => {
  await push({ title: "", body: "", url: "/", tag: "approval:run-1", clear: true });
  const list = await until(shown, (l) => !l.some((n) => n.tag === "approval:run-1"), "the approval cleared");
  assert.ok(
    list.some((n) => n.tag === "reply:s1"),
    "the reply's notification stays (control)",
  );
});
