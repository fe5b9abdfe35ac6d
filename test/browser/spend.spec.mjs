// The agent page shows what the agent spent today against its daily caps, and says when a cap is
// reached; the agents list shows the project's spend.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, uniqueName } from "./harness.mjs";

let b;
before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

test("an agent past its daily token cap shows its spend, 'cap reached' and when calls resume", async () => {
  const capped = uniqueName("capped");
  const free = uniqueName("free");
  await createAgent(capped, { runtime: { limits: { tokensPerDay: 1 } } });
  await createAgent(free);
  for (const name of [capped, capped, free])
    await api(`/api/agents/${name}/messages`, { method: "POST", body: JSON.stringify({ content: "hello there" }) });
  const page = b.page;
  await page.goto(`/#/agents/${capped}`);
  const spend = page.locator('pantheon-actor-detail .spend[data-scope="agent"]');
  await spend.waitFor();
  const text = (await spend.textContent())?.replace(/\s+/g, " ") ?? "";
  assert.match(text, /Spend: \d+ of 1 tokens · \$0 today/);
  assert.match(text, /cap reached/);
  await page.locator("pantheon-actor-detail p", { hasText: "Model calls are refused until" }).waitFor();
  // Positive control: the agent without caps shows its spend and no reached cap.
  await page.goto(`/#/agents/${free}`);
  const freeSpend = page.locator('pantheon-actor-detail .spend[data-scope="agent"]');
  await freeSpend.waitFor();
  const freeText = (await freeSpend.textContent())?.replace(/\s+/g, " ") ?? "";
  assert.match(freeText, /Spend: [1-9]\d* tokens · \$0 today/);
  assert.doesNotMatch(freeText, /cap reached/);
  await page.locator("pantheon-actor-detail p", { hasText: "Loading…" }).first().waitFor({ state: "detached" });
  assert.deepEqual(await axe(page), []);
  await page.goto("/#/agents");
  const project = page.locator('pantheon-actors-table .spend[data-scope="project"]');
  await project.waitFor();
  assert.match((await project.textContent())?.replace(/\s+/g, " ") ?? "", /Project spend: [1-9]\d* tokens · \$0 today/);
});
