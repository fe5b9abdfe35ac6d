// A person signs in, creates an agent, chats with it and reads the trace of a run.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, axe, launch, shoot, shootBoth, signIn, uniqueName } from "./harness.mjs";

let b;
before(async () => {
  b = await launch({ viewport: PHONE });
  // The offline model answers in a few milliseconds, so its tokens usually arrive in one network
  // chunk. Hand them to the page one event per task, as a real model over a real network would.
  await b.context.addInitScript(() => {
    const realFetch = window.fetch.bind(window);
    window.fetch = async (...args) => {
      const res = await realFetch(...args);
      if (!(res.headers.get("content-type") ?? "").includes("text/event-stream") || !res.body) return res;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      const encoder = new TextEncoder();
      let buffer = "";
      const body = new ReadableStream({
        async pull(controller) {
          const { value, done } = await reader.read();
          if (done) {
            if (buffer) controller.enqueue(encoder.encode(buffer));
            return controller.close();
          }
          buffer += decoder.decode(value, { stream: true });
          const events = buffer.split("\n\n");
          buffer = events.pop() ?? "";
          for (const e of events) {
            controller.enqueue(encoder.encode(`${e}\n\n`));
            await new Promise((r) => setTimeout(r, 15));
          }
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
  });
});
after(async () => {
  await b?.close();
});

test("a wrong token is refused in words a person understands", async () => {
  await signIn(b.page, "not-a-real-token");
  await b.page.getByText("That token was not accepted").waitFor();
  assert.deepEqual(await axe(b.page), []);
  await shoot(b.page, "sign-in-error");
});

test("signing in with the admin token shows the agents page", async () => {
  await signIn(b.page);
  await b.page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
  assert.ok(await b.page.evaluate(() => localStorage.getItem("pantheon.token")), "the token is kept on the device");
});

const agent = uniqueName("chat");

test("an agent created from the form appears in the list", async () => {
  const page = b.page;
  await page.getByRole("button", { name: "+ New agent" }).click();
  await page.getByLabel("Name", { exact: true }).fill(agent);
  await page.getByLabel("Description").fill("Answers questions from a browser test");
  await page.getByRole("button", { name: "Create agent" }).click();
  const outcome = page.locator("pantheon-actors-table .alert").first();
  await outcome.waitFor();
  assert.match((await outcome.textContent()) ?? "", new RegExp(`Created ${agent}`));
  await page.locator(".card.agent", { hasText: agent }).waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "agents");
});

test("a reply streams in token by token and then settles", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByText("Say hello to").waitFor();
  // Record every text the streaming bubble shows: more than one partial state means it streamed.
  await page.evaluate(() => {
    const seen = (window.__partials = []);
    const find = () => document.querySelector("pantheon-app")?.shadowRoot?.querySelector("pantheon-chat")?.shadowRoot;
    const observe = () => {
      const root = find();
      if (!root) return requestAnimationFrame(observe);
      new MutationObserver(() => {
        const draft = root.querySelector('.msg.assistant[aria-busy="true"]');
        if (draft) seen.push(draft.textContent.replace("▍", ""));
      }).observe(root, { subtree: true, childList: true, characterData: true });
    };
    observe();
  });
  await page.getByLabel(`Message ${agent}`).fill("hello there");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator("pantheon-chat .msg.user", { hasText: "hello there" }).waitFor();
  const reply = page.locator('pantheon-chat .msg.assistant[aria-busy="false"]').last();
  await reply.waitFor();
  const final = (await reply.textContent()) ?? "";
  const partials = new Set(await page.evaluate(() => window.__partials));
  assert.ok(final.length > 0, "the reply has text");
  assert.ok(
    [...partials].some((p) => p.length > 0 && p.length < final.length),
    `saw partial replies while streaming: ${[...partials].length}`,
  );
  assert.equal(
    await page.locator("pantheon-chat .msg.user", { hasText: "hello there" }).count(),
    1,
    "the message appears once",
  );
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "chat");
});

test("the dark theme can be chosen by hand and keeps good contrast", async () => {
  const page = b.page;
  await page.getByRole("button", { name: /^Theme: system/ }).click();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  assert.equal(await page.evaluate(() => localStorage.getItem("pantheon.theme")), "dark");
  assert.deepEqual(await axe(page), []);
  await shoot(page, "chat-dark");
  await page.getByRole("button", { name: /^Theme: dark/ }).click();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
  await page.getByRole("button", { name: /^Theme: light/ }).click();
});

test("a /tool command shows the tool call inline and it can be opened", async () => {
  const page = b.page;
  await page.getByLabel(`Message ${agent}`).fill("/tool clock.now {}");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator("pantheon-chat .msg.user", { hasText: "/tool clock.now {}" }).waitFor();
  await page.locator('pantheon-chat .msg.assistant[aria-busy="false"]').nth(1).waitFor();
  const tool = page.locator("pantheon-chat details.tool", { hasText: "clock.now" });
  await tool.first().waitFor();
  await tool.first().locator("summary").click();
  await tool.first().getByText("Result").waitFor();
  await shootBoth(page, "chat-tool");
});

test("the trace of a reply lists every step with its timing", async () => {
  const page = b.page;
  await page.getByRole("link", { name: "View trace" }).first().click();
  await page.getByRole("heading", { name: /Run trace/ }).waitFor();
  assert.equal(await page.locator("pantheon-run-trace .alert.error").count(), 0, "the trace loads");
  const steps = page.locator("pantheon-run-trace .step-row");
  await steps.first().waitFor();
  assert.ok((await steps.count()) > 0);
  assert.match((await steps.first().textContent()) ?? "", /\d+ ms/);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "trace");
});

test("signing out forgets the token", async () => {
  await b.page.getByRole("button", { name: "Sign out" }).click();
  await b.page.getByLabel("API token").waitFor();
  assert.equal(await b.page.evaluate(() => localStorage.getItem("pantheon.token")), null);
  assert.deepEqual(b.errors.map(String), []);
});
