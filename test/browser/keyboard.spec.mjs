// Everything a person does in the chat works with the keyboard alone, and focus is always visible.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, createAgent, launchSignedIn, shoot, uniqueName } from "./harness.mjs";

let b;
const agent = uniqueName("keys");

before(async () => {
  await createAgent(agent, { runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

/** The element that has focus, through every shadow root, with what a person sees of it. */
const focused = () =>
  b.page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.getAttribute("aria-label") || el.textContent || "").trim(),
      label: el.getAttribute("aria-label") ?? "",
      id: el.id,
      ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    };
  });

/** Presses Tab (or Shift+Tab) until `match` holds for the focused element; fails after `max` presses. */
async function tabTo(match, { max = 60, back = false } = {}) {
  for (let i = 0; i < max; i++) {
    await b.page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const el = await focused();
    if (el && match(el)) return el;
  }
  throw new Error(`Tab never reached the element (last: ${JSON.stringify(await focused())})`);
}

test("the navigation is reached with Tab, followed with Enter, and shows a focus ring", async () => {
  const page = b.page;
  await page.goto("/#/agents");
  await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
  const link = await tabTo((el) => el.tag === "a" && el.text.startsWith("Approvals"));
  assert.ok(link.ring, "the focused link has a visible outline");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Approvals" }).waitFor();
  assert.match(page.url(), /#\/approvals$/);
  await tabTo((el) => el.tag === "a" && el.text === "Agents");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
});

test("a message is written and sent with the keyboard: Enter in the composer, or Tab to Send", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  const composer = await tabTo((el) => el.id === "composer");
  assert.ok(composer.ring, "the composer shows where typing goes");
  await page.keyboard.type("hello from the keyboard");
  await page.keyboard.press("Enter");
  await page.locator("pantheon-chat .msg.user", { hasText: "hello from the keyboard" }).waitFor();
  await page.locator('pantheon-chat .msg.assistant[aria-busy="false"]').first().waitFor();

  assert.equal((await focused())?.id, "composer", "focus stays in the composer after sending");
  await page.keyboard.type("and once more");
  const send = await tabTo((el) => el.tag === "button" && el.text === "Send", { max: 3 });
  assert.ok(send.ring, "the Send button shows its focus");
  await shoot(page, "keyboard-send-focus");
  await page.keyboard.press("Enter");
  await page.locator("pantheon-chat .msg.user", { hasText: "and once more" }).waitFor();
});

test("a tool call waiting for a person is approved with the keyboard alone", async () => {
  const page = b.page;
  await tabTo((el) => el.id === "composer", { back: true });
  await page.keyboard.type("/tool clock.now {}");
  await page.keyboard.press("Enter");
  const approval = page.locator("pantheon-chat .approval");
  await approval.waitFor();
  const approve = await tabTo((el) => el.tag === "button" && el.text === "Approve", { back: true });
  assert.ok(approve.ring, "the Approve button shows its focus");
  await shoot(page, "keyboard-approve-focus");
  await page.keyboard.press("Enter");
  await approval.waitFor({ state: "detached" });
  await page.locator("pantheon-chat .msg.assistant", { hasText: "The tool clock.now returned" }).waitFor();
  const { body } = await api(`/api/approvals`);
  assert.equal(body.approvals.filter((a) => a.agent === agent).length, 0, "nothing waits any more");

  // Reject works the same way.
  await tabTo((el) => el.id === "composer");
  await page.keyboard.type("/tool clock.now {}");
  await page.keyboard.press("Enter");
  await approval.waitFor();
  await tabTo((el) => el.tag === "button" && el.text === "Reject", { back: true });
  await page.keyboard.press("Enter");
  await approval.waitFor({ state: "detached" });
  assert.deepEqual(b.errors.map(String), []);
});
