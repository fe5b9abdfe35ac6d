// A person looks inside an agent: its script and schedules, what it sees, its tools, and who it asked.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
const buddy = uniqueName("buddy");

before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

/** The example script, renamed to a fresh agent: a script's actor must be the agent of the path. */
async function loadDevBuddy(name) {
  const source = (await readFile(new URL("../../examples/dev-buddy.pnth", import.meta.url), "utf8")).replace(
    '(actor "dev-buddy"',
    `(actor "${name}"`,
  );
  const res = await api(`/api/agents/${name}/script`, {
    method: "PUT",
    body: source,
    headers: { "content-type": "text/x-pantheon" },
  });
  assert.equal(res.status, 201, `PUT script answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

test("the agent page shows a script loaded through the API, with its compile warnings", async () => {
  const loaded = await loadDevBuddy(buddy);
  assert.ok(loaded.warnings.length > 0, "the example names a tool no registry provides");
  const page = b.page;
  await page.goto(`/#/agents/${buddy}`);
  const detail = page.locator("pantheon-actor-detail");
  const source = detail.getByLabel("Script source");
  await source.waitFor();
  assert.match(
    (await source.textContent()) ?? "",
    new RegExp(`\\(actor "${buddy}"[\\s\\S]*\\(behavior "review-open-diffs" :passive`),
  );
  const warnings = detail.getByRole("note", { name: "Compile warnings" });
  assert.match((await warnings.textContent()) ?? "", /line 24:17[\s\S]*git\.diff/);
  await detail.getByText("Reviews code changes and answers questions about them.").first().waitFor();
  await detail.getByText("Not connected: this agent asks no other agent.").waitFor();
  await detail.locator("p", { hasText: "Loading…" }).first().waitFor({ state: "detached" });
  assert.deepEqual(await axe(page), []);
  await shootBoth(b.page, "agent-detail");
});

test("its schedules say when each behavior runs next, and a pause sticks across a reload", async () => {
  const page = b.page;
  const row = page.locator('pantheon-actor-detail li[data-behavior="review-open-diffs"]');
  await row.getByText(/every 1h · next run in \d+ min/).waitFor();
  await page
    .locator('pantheon-actor-detail li[data-behavior="on-message"]')
    .getByText("runs on each message")
    .waitFor();
  await row.getByRole("button", { name: "Pause review-open-diffs" }).click();
  await row.getByRole("button", { name: "Resume review-open-diffs" }).waitFor();
  await row.getByText("paused: it will not run until resumed").waitFor();
  const { body } = await api(`/api/agents/${buddy}/schedules`);
  assert.equal(
    body.schedules.find((s) => s.behavior === "review-open-diffs").paused,
    true,
    "the server keeps the pause",
  );
  await page.reload();
  await row.locator(".badge", { hasText: "paused" }).waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(b.page, "agent-schedules-paused");
  await row.getByRole("button", { name: "Resume review-open-diffs" }).click();
  await row.getByText(/next run in \d+ min/).waitFor();
});

test("the context view shows each memory it weighed, with source, id and scores, in and out of the budget", async () => {
  const stored = await api(`/api/agents/${buddy}/memories`, {
    method: "POST",
    body: JSON.stringify({ text: "The staging deploy key is kept in the Ops vault.", kind: "fact" }),
  });
  assert.equal(stored.status, 201);
  const page = b.page;
  await page.goto(`/#/agents/${buddy}/context`);
  await page.getByLabel("Message").fill("where is the staging deploy key?");
  await page.getByRole("button", { name: "Show context" }).click();
  const view = page.locator("pantheon-context-view");
  const item = view.locator("article.item", { hasText: "Ops vault" });
  await item.waitFor();
  const text = (await item.textContent()) ?? "";
  assert.match(text, /included/);
  assert.match(text, /memory/, "its source");
  assert.ok(text.includes(stored.body.id), "its id");
  assert.match(text, /final\s*\d\.\d\d[\s\S]*semantic\s*\d\.\d\d/, "its scores");
  await view.getByText(/Tokens used: \d+ of \d+/).waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(b.page, "context");

  // A budget too small for any memory: the same item is listed as left out, with the reason.
  await page.getByLabel("Token budget").fill("20");
  await page.getByRole("button", { name: "Show context" }).click();
  const dropped = view.locator("article.item", { hasText: "Ops vault" });
  await view.getByRole("heading", { name: /Left out \(\d+\)/ }).waitFor();
  assert.match((await dropped.textContent()) ?? "", /left out[\s\S]*budget/i);
  await shootBoth(b.page, "context-over-budget");
});

test("the tool runner lists the agent's tools and runs clock.now, showing the ISO time", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${buddy}/tools`);
  const runner = page.locator("pantheon-tool-runner");
  await runner.getByRole("link", { name: "memory.store" }).click();
  await runner.getByLabel(/^text/).waitFor();
  await runner.getByRole("link", { name: "clock.now" }).click();
  await runner.getByRole("button", { name: "Run clock.now" }).click();
  const output = runner.getByLabel("Output of clock.now");
  await output.waitFor();
  assert.match((await output.textContent()) ?? "", /"iso": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"/);
  assert.deepEqual(await axe(page), []);
  await shootBoth(b.page, "tools");
});

test("a delegation shows on the asked agent's page and opens as a chain of hops", async () => {
  const asker = uniqueName("asker");
  const expert = uniqueName("expert");
  await createAgent(expert, { systemPrompt: "The answer to everything is 42." });
  await createAgent(asker);
  assert.equal(
    (await api(`/api/agents/${asker}/connections`, { method: "PUT", body: JSON.stringify({ connections: [expert] }) }))
      .status,
    200,
  );
  const sent = await api(`/api/agents/${asker}/messages`, {
    method: "POST",
    body: JSON.stringify({ content: `/ask ${expert} what is the answer?` }),
  });
  assert.equal(sent.status, 200);
  let status = sent.body.status;
  for (let i = 0; i < 200 && !["completed", "failed", "cancelled"].includes(status); i++) {
    status = (await api(`/api/agents/${asker}/runs/${sent.body.runId}`)).body.run.status;
  }
  assert.equal(status, "completed");

  const page = b.page;
  await page.goto(`/#/agents/${expert}`);
  const detail = page.locator("pantheon-actor-detail");
  await detail.getByText(`asked by ${asker}`).first().waitFor();
  await detail
    .getByRole("region", { name: "Delegation" })
    .getByText(/\d+\s*waiting/)
    .waitFor();
  await detail.getByRole("link", { name: "Delegation chain" }).first().click();
  const chain = page.locator("pantheon-conversation");
  await chain.getByRole("heading", { name: "Delegation chain" }).waitFor();
  const hop = chain.locator("li.hop").first();
  await hop.waitFor();
  const text = (await hop.textContent()) ?? "";
  assert.match(text, new RegExp(`${asker}\\s*→\\s*${expert}`));
  assert.match(text, /what is the answer\?/);
  assert.match(text, /answered/);
  assert.match(text, /42/);
  assert.match(
    page.url(),
    new RegExp(`#/conversations/${sent.body.runId}$`),
    "the chain's id is the run that asked first",
  );
  assert.deepEqual(await axe(page), []);
  await shootBoth(b.page, "conversation");
  await hop.getByRole("link", { name: `Trace of ${expert}'s run` }).click();
  await page.locator("pantheon-run-trace").getByRole("link", { name: "See the whole chain" }).waitFor();
  assert.deepEqual(b.errors.map(String), []);
});
