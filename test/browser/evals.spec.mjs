// A person on a phone reads how an agent did on its evals: each suite's pass rate against its
// threshold, cost and latency, the failed cases with their reasons, and the move since the last run.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("evaled");
const suite = {
  name: "front desk",
  threshold: 1,
  cases: [
    { name: "code word", input: "What is the code word?", expect: [{ contains: "pineapple" }] },
    { name: "clock", input: "/tool clock.now {}", expect: [{ tool: "clock.now" }] },
  ],
};

before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
  await createAgent(agent, { systemPrompt: "The code word is pineapple." });
});
after(async () => {
  await b?.close();
});

test("the agent page lists its eval runs: pass rate, failed cases with reasons, and the change since the last run", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}`);
  const card = page.locator("pantheon-eval-history");
  await card.getByText(`pantheon eval run suite.yaml --agent ${agent}`).waitFor();

  assert.equal(
    (await api(`/api/agents/${agent}/evals`, { method: "POST", body: JSON.stringify({ suite }) })).status,
    201,
  );
  assert.equal(
    (
      await api(`/api/agents/${agent}`, {
        method: "PATCH",
        body: JSON.stringify({ systemPrompt: "You answer the front desk." }),
      })
    ).status,
    200,
  );
  assert.equal(
    (await api(`/api/agents/${agent}/evals`, { method: "POST", body: JSON.stringify({ suite }) })).status,
    201,
  );
  await page.reload();

  const runs = card.getByRole("list", { name: `Eval runs of ${agent}` }).locator("li.run");
  await runs.first().waitFor();
  assert.equal(await runs.count(), 2);
  const newest = runs.first();
  assert.match(
    (await newest.textContent()) ?? "",
    /front desk\s*1\/2 passed\s*50% \(needs 100%\)\s*-50% since the last run/,
  );
  assert.match(
    (await newest.getByRole("list", { name: "Failed cases" }).textContent()) ?? "",
    /code word: the reply does not contain 'pineapple'/,
  );
  assert.match((await runs.nth(1).textContent()) ?? "", /2\/2 passed/);
  assert.equal(
    await runs.nth(1).getByRole("list", { name: "Failed cases" }).count(),
    0,
    "a run with no failure lists none",
  );
  assert.match((await newest.textContent()) ?? "", /\$0 · p50 \d+ ms · p95 \d+ ms/);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "agent-evals");
});
