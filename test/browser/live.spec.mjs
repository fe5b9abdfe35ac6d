// The chat follows the agent live over its WebSocket and catches up after losing the network.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, createAgent, launchSignedIn, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("live");

before(async () => {
  await createAgent(agent);
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

/** How many bubbles of one role show exactly this text (replies may quote it, so match whole). */
const countOf = (role, text) =>
  b.page.evaluate(
    ([r, t]) => {
      const root = document.querySelector("pantheon-app")?.shadowRoot?.querySelector("pantheon-chat")?.shadowRoot;
      return [...(root?.querySelectorAll(`.msg.${r}`) ?? [])].filter((m) => m.textContent?.trim() === t).length;
    },
    [role, text],
  );

test("a message sent from another device shows up live, with its reply", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  await page.locator("pantheon-chat .live", { hasText: "Live" }).waitFor();
  const text = `from the CLI ${Date.now()}`;
  const sent = await api(`/api/agents/${agent}/messages`, { method: "POST", body: JSON.stringify({ content: text }) });
  assert.equal(sent.status, 200);
  await page.locator("pantheon-chat .msg.user", { hasText: text }).waitFor();
  await page
    .locator("pantheon-chat .msg.assistant", { hasText: text.split(" ").slice(0, 2).join(" ") })
    .first()
    .waitFor();
  assert.equal(await countOf("user", text), 1, "the question shows once");
  assert.equal(await page.locator("pantheon-chat .msg.assistant").count(), 1, "the reply shows once");
});

test("after the network drops, what was missed appears once when it returns", async () => {
  const page = b.page;
  await b.context.setOffline(true);
  await page.getByText("You're offline.").first().waitFor();
  const missed = [`missed one ${Date.now()}`, `missed two ${Date.now()}`];
  for (const content of missed) {
    const res = await api(`/api/agents/${agent}/messages`, { method: "POST", body: JSON.stringify({ content }) });
    assert.equal(res.status, 200);
  }
  await b.context.setOffline(false);
  for (const text of missed) await page.locator("pantheon-chat .msg.user", { hasText: text }).waitFor();
  await page.locator("pantheon-chat .live", { hasText: "Live" }).waitFor();
  for (const text of missed) assert.equal(await countOf("user", text), 1, `"${text}" shows once`);
  await page.locator("pantheon-chat .msg.assistant").nth(2).waitFor();
  const { body } = await api(`/api/agents/${agent}/messages?limit=50`);
  const onScreen = await page.locator("pantheon-chat .msg").count();
  assert.equal(
    onScreen,
    body.messages.filter((m) => m.role === "user" || m.role === "assistant").length,
    "nothing duplicated, nothing missing",
  );
  assert.deepEqual(b.errors.map(String), []);
});
