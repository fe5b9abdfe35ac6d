// Runs waiting for a person can be approved in one tap, from the inbox or from the run's trace.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shoot, shootBoth, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("gated");

before(async () => {
  await createAgent(agent);
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

/** Gives the agent a tool that needs a person and starts a run that waits on it. */
async function startGatedRun() {
  // clock.now needs a person's approval for this agent: every call pauses the run.
  const patch = await api(`/api/agents/${agent}`, {
    method: "PATCH",
    body: JSON.stringify({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } }),
  });
  assert.equal(patch.status, 200, `PATCH runtime answered ${patch.status}`);
  const tools = await api(`/api/agents/${agent}/tools`);
  const gated = tools.body.tools.find((t) => t.requiresApproval);
  assert.ok(gated, "a tool that needs approval");
  const sent = await api(`/api/agents/${agent}/messages`, {
    method: "POST",
    body: JSON.stringify({ content: `/tool ${gated.name} {}` }),
  });
  assert.equal(sent.body?.status, "waiting_approval");
  return { runId: sent.body.runId, tool: gated.name };
}

test("the approvals page says so when nothing waits for a person", async () => {
  const page = b.page;
  await page.goto("/#/approvals");
  await page.getByRole("heading", { name: "Approvals" }).waitFor();
  await page.locator("pantheon-approvals").getByRole("heading", { name: "Nothing waiting" }).waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "approvals");
});

test("approving a pending tool call takes one tap and lets the run finish", async () => {
  const gated = await startGatedRun();
  const page = b.page;
  // The previous test left the page on the approvals route: leave it so the inbox loads afresh.
  await page.goto("/#/agents");
  await page.goto("/#/approvals");
  const card = page.locator("pantheon-approvals article", { hasText: agent });
  await card.waitFor();
  await shootBoth(page, "approvals");
  await card.getByRole("button", { name: "Approve" }).click();
  await card.waitFor({ state: "detached" });
  let status = "waiting_approval";
  for (let i = 0; i < 100 && status === "waiting_approval"; i++) {
    status = (await api(`/api/agents/${agent}/runs/${gated.runId}`)).body.run.status;
  }
  assert.notEqual(status, "waiting_approval");
});

test("a run waiting for a person can be approved from its trace", async () => {
  const gated = await startGatedRun();
  const page = b.page;
  await page.goto(`/#/agents/${agent}/runs/${gated.runId}`);
  const trace = page.locator("pantheon-run-trace");
  const pending = trace.getByRole("group", { name: `Approval for ${gated.tool}` });
  await pending.waitFor();
  await trace.locator(".step-row", { hasText: "gate_decisions" }).first().waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "trace-pending");
  await pending.getByRole("button", { name: "Approve" }).click();
  let status = "waiting_approval";
  for (let i = 0; i < 100 && status === "waiting_approval"; i++) {
    status = (await api(`/api/agents/${agent}/runs/${gated.runId}`)).body.run.status;
  }
  assert.equal(status, "completed");
});

test("an agent without a script says it only chats, and its views still work", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}`);
  const detail = page.locator("pantheon-actor-detail");
  await detail.getByText("No script: this agent only chats.").waitFor();
  await detail.getByText("Nothing scheduled: the script has no behaviors.").waitFor();
  await detail
    .getByRole("link", { name: /^Trace of the run: message · / })
    .first()
    .waitFor();
  await detail.locator("p", { hasText: "Loading…" }).first().waitFor({ state: "detached" });
  assert.deepEqual(await axe(page), []);
  await shoot(page, "agent-detail-chat-only");
  await page.goto(`/#/agents/${agent}/context?q=hello`);
  await page
    .locator("pantheon-context-view")
    .getByText(/Tokens used: \d+ of \d+/)
    .waitFor();
  await page.goto(`/#/agents/${agent}/tools`);
  await page.locator("pantheon-tool-runner").getByRole("button", { name: "Run clock.now" }).waitFor();
  assert.deepEqual(b.errors.map(String), []);
});
