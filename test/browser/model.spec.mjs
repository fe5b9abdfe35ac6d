// The agent page says which model answers on this deployment and why: a stand-in is never silent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, axe, createAgent, launchSignedIn, uniqueName } from "./harness.mjs";

let b;
before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

test("an agent on a provider without its key shows the offline stand-in, the reason and the fix", async () => {
  const name = uniqueName("claude");
  await createAgent(name, { model: { provider: "anthropic", name: "claude-haiku-4-5" } });
  const page = b.page;
  await page.goto(`/#/agents/${name}`);
  const resolved = page.locator("pantheon-actor-detail .resolved-model");
  await resolved.waitFor();
  assert.equal(await resolved.getAttribute("data-status"), "stand-in");
  const text = (await resolved.textContent())?.replace(/\s+/g, " ") ?? "";
  assert.match(text, /Answers here: offline · offline/);
  assert.match(text, /offline stand-in/);
  assert.match(text, /no ANTHROPIC_API_KEY; offline stand-in \(local only\)/);
  assert.match(text, /To use anthropic: add ANTHROPIC_API_KEY=… to \.dev\.vars and restart npm start/);
  await page.locator("pantheon-actor-detail p", { hasText: "Loading…" }).first().waitFor({ state: "detached" });
  assert.deepEqual(await axe(page), []);
});
