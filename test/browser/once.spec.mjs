// Messages arrive once, in Chromium at phone size: the server takes a message and its answer is
// lost on the way back (the connection drops after the server accepted it). The page keeps the
// message in its outbox under the same client id; closed and reopened online, it is sent again,
// and the server answers the first send: one message and one reply, never two.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, createAgent, launchSignedIn, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("once");

before(async () => {
  await createAgent(agent);
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

async function stored(text) {
  const { body } = await api(`/api/agents/${agent}/messages?limit=50`);
  return body.messages.filter((m) => m.role === "user" && m.content === text).length;
}

test("a send whose answer was lost after the server took it arrives once when the page comes back", async () => {
  let page = b.page;
  const text = `answer lost ${Date.now()}`;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  // The server gets the message and answers in full; the answer never reaches the page.
  let accepted = false;
  await page.route(`**/api/agents/${agent}/messages`, async (route) => {
    if (route.request().method() !== "POST" || accepted) return route.fallback();
    await route.fetch();
    accepted = true;
    await route.abort("connectionreset");
  });
  await page.getByLabel(`Message ${agent}`).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("your message is queued").waitFor();
  assert.ok(accepted, "the server took the first send");
  assert.equal(await stored(text), 1, "the server stored it once already");

  // The page is closed and opened again, online: the outbox sends it again, with its id.
  await page.close();
  page = await b.context.newPage();
  await page.goto(`/#/agents/${agent}/chat`);
  await page.waitForFunction(
    () =>
      new Promise((ok) => {
        const req = indexedDB.open("pantheon");
        req.onsuccess = () => {
          const r = req.result.transaction("outbox").objectStore("outbox").count();
          r.onsuccess = () => ok(r.result === 0);
        };
      }),
  );
  await page.locator("pantheon-chat .msg.user", { hasText: text }).first().waitFor();
  assert.equal(await stored(text), 1, "still one message on the server");
  const { body } = await api(`/api/agents/${agent}/messages?limit=50`);
  assert.equal(body.messages.filter((m) => m.role === "assistant").length, 1, "and one reply");
  assert.equal(await page.locator("pantheon-chat .msg.user", { hasText: text }).count(), 1, "the page shows it once");
});
