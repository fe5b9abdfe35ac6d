// Push notifications in Chromium at phone size, through the real service worker: a push delivered
// to it (the DevTools protocol's ServiceWorker.deliverPushMessage, as a push service would) shows a
// notification with the notice's title, line and tag; a second notice of the same tag replaces the
// first; a `clear` notice of that tag closes it. The payload is the one the agent builds
// (core/push approvalNotice), so what a phone shows is what the server sends. The badge shows the
// `waiting` count a push carries; a click on a notification (the worker's own notificationclick
// listener, dispatched in the worker) lands on the exact approval; the share target opens the chosen
// agent's chat with what was shared (text, or a photo attached); a `?project=` link opens that project;
// signing out turns the device's notifications off.
import assert from "node:assert/strict";
import { createECDH, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { BASE_URL, PHONE, TOKEN, api, createAgent, launchSignedIn, uniqueName } from "./harness.mjs";

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
/** Polls `read` until `ok`: up to 15 s, since a loaded machine may take seconds to start the worker for a push. */
async function until(read, ok, what) {
  for (let i = 0; i < 300; i++) {
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

/** The service worker itself (Playwright's handle), to run code in its global scope. */
const worker = async () =>
  b.context.serviceWorkers().find((w) => w.url().startsWith(origin())) ??
  (await b.context.waitForEvent("serviceworker"));

test("the badge shows what waits for the person, as the push counts it, not the notifications shown", async () => {
  const sw = await worker();
  // Record what the worker asks of the Badging API (the browser shows the badge only on an installed app).
  await sw.evaluate(() => {
    globalThis.badges = [];
    const nav = self.navigator;
    Object.defineProperty(nav, "setAppBadge", {
      configurable: true,
      value: async (n) => void globalThis.badges.push(n),
    });
    Object.defineProperty(nav, "clearAppBadge", {
      configurable: true,
      value: async () => void globalThis.badges.push(0),
    });
  });
  const badges = () => sw.evaluate(() => globalThis.badges);
  await push({
    title: "helper asks to use clock.now",
    body: "An approval waits for you.",
    url: "/#/approvals",
    tag: "approval:run-7",
    waiting: 3,
  });
  assert.deepEqual(await until(badges, (l) => l.length === 1, "the badge set"), [3]);
  // Dismissing a notification leaves the count: the approval still waits.
  await sw.evaluate(async () => {
    const [n] = await self.registration.getNotifications({ tag: "approval:run-7" });
    n.close();
    self.dispatchEvent(new NotificationEvent("notificationclose", { notification: n }));
  });
  assert.deepEqual(await until(badges, (l) => l.length === 2, "the badge after a dismissal"), [3, 3]);
  // Answered elsewhere: the clearing push carries the lower count, and at zero the badge goes.
  await push({ title: "", body: "", url: "/", tag: "approval:run-7", clear: true, waiting: 0 });
  assert.deepEqual(await until(badges, (l) => l.length === 3, "the badge cleared"), [3, 3, 0]);
});

test("clicking an approval's notification opens that approval, its pending call ready to decide", async () => {
  const agent = uniqueName("notified");
  await createAgent(agent, { runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
  const sent = await api(`/api/agents/${agent}/messages`, {
    method: "POST",
    body: JSON.stringify({ content: "/tool clock.now {}" }),
  });
  assert.equal(sent.body?.status, "waiting_approval");
  const runId = sent.body.runId;
  await b.page.goto("/#/agents");
  // The notice as the server builds it (core/push approvalNotice).
  const tag = `approval:${runId}`;
  await push({
    title: `${agent} asks to use clock.now`,
    body: "An approval waits for you.",
    url: `/#/agents/${agent}/runs/${runId}`,
    tag,
  });
  await until(shown, (l) => l.some((n) => n.tag === tag), "the approval's notification");
  const sw = await worker();
  await sw.evaluate(async (t) => {
    const [notification] = await self.registration.getNotifications({ tag: t });
    self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
  }, tag);
  await b.page.waitForURL((url) => url.hash === `#/agents/${agent}/runs/${runId}`);
  const pending = b.page.locator("pantheon-run-trace").getByRole("group", { name: "Approval for clock.now" });
  await pending.getByRole("button", { name: "Approve" }).waitFor();
  // The click closed it.
  assert.equal((await shown()).filter((n) => n.tag === tag).length, 0);
});

test("sharing a link and text into the app opens the chosen agent's chat with them in the message box, unsent", async () => {
  const agent = uniqueName("shared");
  await createAgent(agent);
  await b.page.goto("/#/agents");
  // Another app's share, as the browser sends it to the manifest's share_target (a multipart POST).
  const target = await b.page.evaluate(async () => (await (await fetch("/manifest.webmanifest")).json()).share_target);
  assert.equal(target.method, "POST");
  await b.page.evaluate(({ action, params }) => {
    const form = Object.assign(document.createElement("form"), {
      method: "POST",
      action,
      enctype: "multipart/form-data",
    });
    for (const [name, value] of [
      [params.title, "A page"],
      [params.text, "Worth a read"],
      [params.url, "https://example.com/article"],
    ])
      form.append(Object.assign(document.createElement("input"), { type: "hidden", name, value }));
    document.body.append(form);
    form.submit();
  }, target);
  await b.page.waitForURL((url) => url.hash === "#/share");
  await b.page.getByRole("heading", { name: "Share to which agent?" }).waitFor();
  await b.page.locator("pantheon-share").getByRole("button", { name: agent, exact: true }).click();
  await b.page.waitForURL((url) => url.hash.startsWith(`#/agents/${agent}/chat`));
  const box = b.page.getByLabel(`Message ${agent}`);
  await until(
    () => box.inputValue(),
    (v) => v.length > 0,
    "the shared text in the message box",
  );
  assert.equal(await box.inputValue(), "A page\nWorth a read\nhttps://example.com/article");
  // Unsent: the agent has no message yet.
  assert.deepEqual((await api(`/api/agents/${agent}/messages`)).body.messages, []);
});

test("a notice's ?project= link opens that project, and its agents", async () => {
  const project = uniqueName("elsewhere");
  assert.equal((await api("/api/projects", { method: "POST", body: JSON.stringify({ slug: project }) })).status, 201);
  const agent = uniqueName("there");
  const made = await fetch(`${BASE_URL}/api/agents`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "x-pantheon-project": project },
    body: JSON.stringify({ name: agent, description: "In the other project" }),
  });
  assert.equal(made.status, 201, await made.text());
  await b.page.goto(`/?project=${project}#/agents/${agent}/chat`);
  await b.page.getByLabel(`Message ${agent}`).waitFor();
  assert.equal(await b.page.evaluate(() => localStorage.getItem("pantheon.project")), project);
  // Control: the default project has no such agent.
  assert.equal((await api(`/api/agents/${agent}`)).status, 404);
});

test("sharing a photo into the app opens the chosen agent's chat with the photo attached, unsent", async () => {
  const agent = uniqueName("photo");
  await createAgent(agent);
  // Back in the default project (the ?project= link above switched it).
  await b.page.evaluate(() => localStorage.setItem("pantheon.project", "default"));
  await b.page.goto("/#/agents");
  await b.page.reload();
  const target = await b.page.evaluate(async () => (await (await fetch("/manifest.webmanifest")).json()).share_target);
  // The manifest takes files: images, as multipart form data.
  assert.equal(target.enctype, "multipart/form-data");
  assert.deepEqual(target.params.files, [{ name: "photos", accept: ["image/*"] }]);
  // Another app's share of a photo with a line of text, as the browser posts it.
  await b.page.evaluate(async ({ action, params }) => {
    const canvas = new OffscreenCanvas(64, 48);
    const draw = canvas.getContext("2d");
    draw.fillStyle = "#c33";
    draw.fillRect(0, 0, 64, 48);
    const photo = new File([await canvas.convertToBlob({ type: "image/png" })], "sunset.png", { type: "image/png" });
    const form = Object.assign(document.createElement("form"), {
      method: "POST",
      action,
      enctype: "multipart/form-data",
    });
    const files = Object.assign(document.createElement("input"), { type: "file", name: params.files[0].name });
    const picked = new DataTransfer();
    picked.items.add(photo);
    files.files = picked.files;
    form.append(files);
    form.append(
      Object.assign(document.createElement("input"), { type: "hidden", name: params.text, value: "Look at this" }),
    );
    document.body.append(form);
    form.submit();
  }, target);
  await b.page.waitForURL((url) => url.hash === "#/share");
  await b.page.locator("pantheon-share").getByRole("button", { name: agent, exact: true }).click();
  await b.page.waitForURL((url) => url.hash.startsWith(`#/agents/${agent}/chat`));
  // The photo waits in the message box's tray with the text, to be sent when the person says so.
  const tray = b.page.getByRole("list", { name: "Pictures to send" });
  await tray.getByRole("img", { name: "Picture 1 to send" }).waitFor();
  assert.equal(await tray.getByRole("img").count(), 1);
  assert.equal(await b.page.getByLabel(`Message ${agent}`).inputValue(), "Look at this");
  assert.deepEqual((await api(`/api/agents/${agent}/messages`)).body.messages, []);
});

test("signing out turns this device's notifications off: the server forgets its subscription, the badge and its notifications clear", async () => {
  // A person's device (signed in by an invite), subscribed: the browser's subscription is a stand-in
  // (headless Chromium reaches no real push service), the server's record is real.
  const person = uniqueName("leaver");
  const invite = await api("/api/invites", {
    method: "POST",
    body: JSON.stringify({ name: person, scope: "approve" }),
  });
  const redeemed = await (
    await fetch(`${BASE_URL}/api/invites/redeem`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: invite.body.code }),
    })
  ).json();
  const ua = createECDH("prime256v1");
  ua.generateKeys();
  const subscription = {
    endpoint: `https://fcm.googleapis.com/fcm/send/${uniqueName("device")}`,
    keys: { p256dh: ua.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
  };
  const made = await api("/api/push/subscriptions", {
    method: "POST",
    headers: { authorization: `Bearer ${redeemed.token}` },
    body: JSON.stringify(subscription),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const people = async () => (await api("/api/push/subscriptions")).body.subscriptions.map((s) => s.person);
  // Control: the server has it before the sign-out.
  assert.ok((await people()).includes(person));

  await b.page.evaluate(
    ([t, p]) => {
      localStorage.setItem("pantheon.token", t);
      localStorage.setItem("pantheon.person", p);
      localStorage.setItem("pantheon.project", "default");
    },
    [redeemed.token, person],
  );
  await b.page.goto("/#/agents");
  await b.page.reload();
  await b.page.evaluate((sub) => {
    window.seen = { unsubscribed: false, badgeCleared: false };
    PushManager.prototype.getSubscription = async () => ({
      endpoint: sub.endpoint,
      toJSON: () => sub,
      unsubscribe: async () => (window.seen.unsubscribed = true),
    });
    Object.defineProperty(navigator, "clearAppBadge", {
      configurable: true,
      value: async () => void (window.seen.badgeCleared = true),
    });
  }, subscription);
  await push({ title: "helper replied", body: "hello", url: "/#/agents/helper/chat", tag: "reply:leaver" });
  await until(shown, (l) => l.some((n) => n.tag === "reply:leaver"), "the notification before the sign-out");

  await b.page.getByRole("button", { name: `Sign out (${person})` }).click();
  await b.page.getByLabel("API token").waitFor();
  await until(
    () => b.page.evaluate(() => window.seen),
    (seen) => seen.unsubscribed && seen.badgeCleared,
    "the browser's subscription dropped and the badge cleared",
  );
  assert.deepEqual(await shown(), []);
  // The server is told after the page signed out (it does not wait on the network).
  await until(people, (l) => !l.includes(person), "the server to forget the signed-out device's subscription");
});
