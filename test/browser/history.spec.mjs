// After a reload, the tool calls of past runs are back in the chat, where they were.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("history");
before(async () => {
  await createAgent(agent);
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

const tools = () => b.page.locator("pantheon-chat details.tool", { hasText: "clock.now" });
const replies = () => b.page.locator('pantheon-chat .msg.assistant[aria-busy="false"]');

async function send(text) {
  await b.page.getByLabel(`Message ${agent}`).fill(text);
  await b.page.getByRole("button", { name: "Send" }).click();
}

test("a tool call is still in the chat after a reload, collapsed, and opens to its result", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  await send("/tool clock.now {}");
  await tools().first().waitFor();
  await replies().first().waitFor();

  await page.reload();
  await replies().first().waitFor();
  await tools().first().waitFor();
  assert.equal(await tools().count(), 1, "the call shows once");
  const tool = tools().first();
  assert.equal(await tool.getAttribute("open"), null, "it starts collapsed");
  const placed = await page.evaluate(() => {
    const root = document.querySelector("pantheon-app")?.shadowRoot?.querySelector("pantheon-chat")?.shadowRoot;
    return [...(root?.querySelectorAll(".log > .msg, .log > details.tool") ?? [])].map((e) =>
      e.matches("details") ? "tool" : e.classList.contains("user") ? "user" : "reply",
    );
  });
  assert.deepEqual(placed, ["user", "tool", "reply"], "the call sits between the question and the reply");
  assert.match((await tool.locator("summary").textContent()) ?? "", /done/);

  await tool.locator("summary").click();
  await tool.getByText("Result").waitFor();
  assert.notEqual(await tool.getAttribute("open"), null, "it opens");
  assert.match((await tool.locator("pre").last().textContent()) ?? "", /\d/, "the result is shown");
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "chat-history-tool");
});

test("a new run after the reload adds its own call and repeats none", async () => {
  await send("/tool clock.now {}");
  await replies().nth(1).waitFor();
  await tools().nth(1).waitFor();
  // Catch-up and the trace fetch after the run settle; the count must stay at one item per call.
  await b.page.waitForLoadState("networkidle");
  assert.equal(await tools().count(), 2);
  assert.deepEqual(b.errors.map(String), []);
});
