// The PWA installs, opens without a network, and keeps what a person types while offline.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shoot, shootBoth, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("offline");

before(async () => {
  await createAgent(agent);
  b = await launchSignedIn({ viewport: PHONE, reload: false });
});
after(async () => {
  await b?.close();
});

test("the app is installable: a valid manifest is linked and a service worker is active", async () => {
  const page = b.page;
  await page.goto("/#/agents");
  const href = await page.getAttribute('link[rel="manifest"]', "href");
  assert.equal(href, "/manifest.webmanifest");
  const manifest = await page.evaluate(async (h) => (await fetch(h)).json(), href);
  assert.equal(manifest.name, "Pantheon");
  assert.equal(manifest.display, "standalone");
  assert.ok(manifest.start_url.startsWith("/"));
  assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/i);
  const sizes = await page.evaluate(
    async (icons) =>
      Promise.all(
        icons
          .filter((i) => i.type === "image/png")
          .map(async (i) => {
            const img = new Image();
            img.src = i.src;
            await img.decode();
            return { declared: i.sizes, actual: `${img.naturalWidth}x${img.naturalHeight}`, purpose: i.purpose };
          }),
      ),
    manifest.icons,
  );
  for (const s of sizes) assert.equal(s.actual, s.declared, "each PNG icon has the size it declares");
  assert.ok(sizes.some((s) => s.declared === "192x192"));
  assert.ok(sizes.some((s) => s.declared === "512x512" && s.purpose === "any"));
  assert.ok(sizes.some((s) => s.purpose === "maskable"));
  // `ready` resolves once a worker is active, possibly still "activating": wait for it to finish.
  const state = await page.evaluate(async () => {
    const worker = (await navigator.serviceWorker.ready).active;
    if (worker && worker.state !== "activated")
      await new Promise((resolve) =>
        worker.addEventListener("statechange", () => worker.state === "activated" && resolve(undefined)),
      );
    return worker?.state;
  });
  assert.equal(state, "activated");
});

test("the app opens with no network from the service worker's cache", async () => {
  const page = b.page;
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await b.context.setOffline(true);
  try {
    await page.reload();
    await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
    await page.getByText("You're offline").first().waitFor();
    await shoot(page, "offline-agents");
  } finally {
    await b.context.setOffline(false);
  }
});

test("a message sent offline is queued and arrives once the connection returns", async () => {
  const page = b.page;
  const text = `sent while offline ${Date.now()}`;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  await b.context.setOffline(true);
  await page.getByText("You're offline.").first().waitFor();
  await page.getByLabel(`Message ${agent}`).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("You're offline; your message is queued").waitFor();
  await page.locator("pantheon-chat .msg.user", { hasText: text }).getByText("Queued").waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "offline-queued");

  await b.context.setOffline(false);
  const mine = page.locator("pantheon-chat .msg.user", { hasText: text });
  await page.waitForFunction((t) => {
    const root = document.querySelector("pantheon-app")?.shadowRoot?.querySelector("pantheon-chat")?.shadowRoot;
    const msgs = [...(root?.querySelectorAll(".msg") ?? [])];
    const at = msgs.findIndex((m) => m.textContent?.includes(t));
    return (
      at >= 0 &&
      !msgs[at].textContent.includes("Queued") &&
      msgs.slice(at + 1).some((m) => m.classList.contains("assistant"))
    );
  }, text);
  assert.equal(await mine.count(), 1, "the message shows once");
  const { body } = await api(`/api/agents/${agent}/messages?limit=50`);
  assert.equal(
    body.messages.filter((m) => m.role === "user" && m.content === text).length,
    1,
    "the server stored it exactly once",
  );
  assert.equal(
    await page.evaluate(
      () =>
        new Promise((ok) => {
          const req = indexedDB.open("pantheon");
          req.onsuccess = () => {
            const r = req.result.transaction("outbox").objectStore("outbox").count();
            r.onsuccess = () => ok(r.result);
          };
        }),
    ),
    0,
    "the outbox is empty",
  );
});

test("a reload while offline keeps the unsent message", async () => {
  const page = b.page;
  const text = `kept across a reload ${Date.now()}`;
  await b.context.setOffline(true);
  await page.getByLabel(`Message ${agent}`).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("You're offline; your message is queued").waitFor();
  await page.reload();
  await page.locator("pantheon-chat .msg.user", { hasText: text }).getByText("Queued").waitFor();
  await b.context.setOffline(false);
  await page.locator("pantheon-chat .msg.user", { hasText: text }).waitFor();
  await page.waitForFunction((t) => {
    const root = document.querySelector("pantheon-app")?.shadowRoot?.querySelector("pantheon-chat")?.shadowRoot;
    return [...(root?.querySelectorAll(".msg.user") ?? [])].some(
      (m) => m.textContent?.includes(t) && !m.textContent.includes("Queued"),
    );
  }, text);
  assert.deepEqual(b.errors.map(String), []);
});
