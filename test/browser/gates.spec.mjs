// What the gates decide shows in the chat, next to the tool call it is about.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

async function send(agent, text) {
  const page = b.page;
  await page.getByLabel(`Message ${agent}`).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator("pantheon-chat .msg.user", { hasText: text }).waitFor();
}

test("a tool the agent does not declare is refused, and the chat says so", async () => {
  const agent = uniqueName("clockonly");
  await createAgent(agent, { runtime: { tools: ["clock.now"] } });
  await b.page.goto(`/#/agents/${agent}/chat`);
  await b.page.getByText("Say hello to").waitFor();
  await send(agent, '/tool http.fetch {"url":"https://example.com"}');
  const reply = b.page.locator('pantheon-chat .msg.assistant[aria-busy="false"]').last();
  await reply.waitFor();
  // The offline model only calls tools it was given, so the refusal comes before any gate runs.
  assert.match((await reply.textContent()) ?? "", /not given a tool named http\.fetch/);
  assert.equal(await b.page.locator("pantheon-chat details.tool").count(), 0, "nothing ran");
});

test("a gate's refusal shows inline with the tool call, and opens to every decision", async () => {
  const agent = uniqueName("gated");
  await createAgent(agent, {
    runtime: {
      tools: ["clock.now", "http.fetch"],
      gates: [{ name: "github-only", kind: "allow-hosts", tool: "http.fetch", hosts: ["api.github.com"] }],
    },
  });
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  await send(agent, '/tool http.fetch {"url":"https://example.com"}');
  const call = page.locator("pantheon-chat details.tool.blocked");
  await call.waitFor();
  const summary = call.locator("summary");
  await summary
    .getByRole("note")
    .getByText(/example\.com is not one of api\.github\.com/)
    .waitFor();
  assert.match((await summary.textContent()) ?? "", /blocked\s*by gate github-only/);
  // Named from the run's trace: the server sends no tool_call event for a refused call.
  await summary.getByText("http.fetch", { exact: true }).waitFor();
  await page
    .locator('pantheon-chat .msg.assistant[aria-busy="false"]', { hasText: "Rejected by gate 'github-only'" })
    .waitFor();
  await summary.click();
  await call.getByText(/Passed gates budget, allowlist, schema/).waitFor();
  await call.getByText(/Gate github-only refused it/).waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "chat-gate");
  assert.deepEqual(b.errors.map(String), []);
});
