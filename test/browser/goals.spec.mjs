// A person reads an agent's role and standing goals on its page, and sees them change.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

test("the agent page lists its role and standing goals, and an agent without goals says how to set them", async () => {
  const reviewer = uniqueName("reviewer");
  await createAgent(reviewer, { role: "code reviewer", goals: ["Review PR #123", "Keep CI green"] });
  const page = b.page;
  await page.goto(`/#/agents/${reviewer}`);
  const goals = page.locator("pantheon-actor-detail").getByRole("list", { name: `Standing goals of ${reviewer}` });
  await goals.getByText("Review PR #123").waitFor();
  assert.deepEqual(
    (await goals.locator("li").allTextContents()).map((t) => t.trim()),
    ["Review PR #123", "Keep CI green"],
  );
  await page.locator("pantheon-actor-detail").getByText("Role: code reviewer").waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "agent-goals");

  // Changed over the API: the page shows the new goals after a reload.
  const patched = await api(`/api/agents/${reviewer}`, {
    method: "PATCH",
    body: JSON.stringify({ goals: ["Review PR #124"] }),
    headers: { "content-type": "application/json" },
  });
  assert.equal(patched.status, 200);
  await page.reload();
  await goals.getByText("Review PR #124").waitFor();
  assert.equal(await goals.locator("li").count(), 1);

  const plain = uniqueName("plain");
  await createAgent(plain);
  await page.goto(`/#/agents/${plain}`);
  await page.locator("pantheon-actor-detail").getByText("No standing goals.").waitFor();
});
