// The Work views on a phone (issue 28 item 9), reviewing a plan, with data made through the API on
// the offline model: what needs a person first, a plan's changes since the last version with the
// earlier comments beside their lines (authors by name), approving with open comments confirmed,
// a planner's question answered from the inbox, and the plan's analysis. The board, the tasks and
// their files are work-phone-tasks.spec.mjs, which runs after this one (run.mjs sorts the specs):
// its features are newer, so the features list here is checked before they exist.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shoot, uniqueName } from "./harness.mjs";
import { as, invited, planV1, planV2, plannerTools, tokenOf } from "./work-phone-kit.mjs";

const planner = uniqueName("planner");
const feature = uniqueName("limits").slice(0, 40);
const newer = uniqueName("newer").slice(0, 40);

let b;
/** The person an invite names, and a plain token: the two kinds of comment author. */
let ada;
let plain;

before(async () => {
  await createAgent(planner, { runtime: { tools: plannerTools } });
  // The feature under review is made first; a newer one with an approved plan after it.
  for (const [name, title] of [
    [feature, "Login limits"],
    [newer, "Newer, nothing to do"],
  ]) {
    const created = await api("/api/features", {
      method: "POST",
      body: JSON.stringify({ name, title, orchestrator: planner }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  assert.equal(
    (await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: planV1 }) })).status,
    200,
  );
  assert.equal(
    (
      await api(`/api/features/${newer}/plan`, {
        method: "PUT",
        body: JSON.stringify({ markdown: "# Newer\n\n## Tasks\n\n1. One — the only task\n" }),
      })
    ).status,
    200,
  );
  assert.equal((await api(`/api/features/${newer}/plan/approve`, { method: "POST", body: "{}" })).status, 200);
  ada = await invited("Ada Reviewer", "chat");
  plain = await tokenOf(uniqueName("h5-chat"), "chat");
  assert.equal(
    (
      await as(ada, `/api/features/${feature}/plan/comments`, {
        method: "POST",
        body: JSON.stringify({ line: 3, body: "Per account or per address?" }),
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await as(plain, `/api/features/${feature}/plan/comments`, {
        method: "POST",
        body: JSON.stringify({ line: 9, body: "Say the number before we start" }),
      })
    ).status,
    201,
  );
  assert.equal(
    (await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: planV2 }) })).status,
    200,
  );
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

test("features: the one that needs a person comes first, then the newest, each with its start and end", async () => {
  const page = b.page;
  await page.goto("/#/features");
  const list = page.locator("pantheon-features");
  const waiting = list.locator("li.feature", { hasText: "Login limits" });
  await waiting.getByText("Plan v2 waits for review").waitFor();
  const titles = await list.locator("li.feature a.title").allInnerTexts();
  assert.ok(
    titles.indexOf("Login limits") < titles.indexOf("Newer, nothing to do"),
    `older but waiting comes first: ${titles.join(" | ")}`,
  );
  // Positive control of the order: among features that need nothing, the newest is first.
  const calm = await list.getByRole("list", { name: "Features, newest first" }).locator("a.title").allInnerTexts();
  assert.equal(calm[0], "Newer, nothing to do");
  assert.match(await waiting.innerText(), /Started .+ · not ended/);
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-phone-features");
});

test("a plan's changes since the last version show each earlier comment beside its line, by its author's name", async () => {
  const page = b.page;
  await page.goto(`/#/features/${feature}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("heading", { name: "Plan v2" }).waitFor();
  // The plain view: v1's comment on a line v2 kept sits beside that line, marked as v1's.
  const kept = review.locator('li[data-line="9"] article.comment');
  await kept.getByText("Say the number before we start").waitFor();
  const author = await kept.locator(".who").innerText();
  assert.match(author, /^h5-chat-/);
  assert.doesNotMatch(author, /token:/);
  assert.match(author, /on v1/);
  await review.getByText(/1 from v1 beside the lines they were on, 1 on lines changed since/).waitFor();

  await review.getByRole("link", { name: "Changes since v1" }).click();
  const changes = review.getByRole("region", { name: "Changes from v1 to v2" });
  await changes.waitFor();
  const removed = changes.locator("li.change.removed");
  assert.equal(await removed.count(), 1);
  assert.match(await removed.innerText(), /Limit login attempts\./);
  // Ada's comment (an invited person: her name) is under the line it was on, which v2 changed.
  await removed.locator("article.comment .who", { hasText: "Ada Reviewer" }).waitFor();
  assert.match(await changes.locator("li.change.added").innerText(), /per account and per address/);
  await changes
    .locator('li.change.same[data-old="9"][data-new="9"] article.comment')
    .getByText("Say the number before we start")
    .waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-phone-plan-changes");
});

test("approving with an open comment asks to confirm; Not yet leaves the plan in review", async () => {
  const page = b.page;
  await page.goto(`/#/features/${feature}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("button", { name: "Approve v2" }).click();
  const confirm = review.getByRole("alertdialog");
  await confirm.getByText("Approve v2 with 1 open comment?").waitFor();
  await confirm.getByText(/Line 9 of v1, h5-chat-.*: Say the number before we start/).waitFor();
  await shoot(page, "work-phone-plan-confirm");
  await confirm.getByRole("button", { name: "Not yet" }).click();
  await confirm.waitFor({ state: "detached" });
  assert.equal((await api(`/api/features/${feature}/plan`)).body.approved, false, "nothing was approved");

  await review.getByRole("button", { name: "Approve v2" }).click();
  await review.getByRole("alertdialog").getByRole("button", { name: "Approve anyway" }).click();
  await review.locator(".badge", { hasText: "approved" }).waitFor();
  assert.equal((await api(`/api/features/${feature}/plan`)).body.approved, true);
});

test("a plan without open comments is approved in one tap", async () => {
  const other = uniqueName("quiet").slice(0, 40);
  assert.equal(
    (
      await api("/api/features", {
        method: "POST",
        body: JSON.stringify({ name: other, title: "Quiet", orchestrator: planner }),
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await api(`/api/features/${other}/plan`, {
        method: "PUT",
        body: JSON.stringify({ markdown: "# Quiet\n\n## Tasks\n\n1. One — a task\n" }),
      })
    ).status,
    200,
  );
  const page = b.page;
  await page.goto(`/#/features/${other}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("button", { name: "Approve v1" }).click();
  await review.locator(".badge", { hasText: "approved" }).waitFor();
  assert.equal(await review.getByRole("alertdialog").count(), 0);
  // The pages of this spec threw nothing (the tasks spec checks its own after its commits).
  assert.deepEqual(b.errors.map(String), []);
});

test("the planner's question about the plan is answered from the inbox, linked to its feature", async () => {
  const name = uniqueName("clarify").slice(0, 40);
  const asker = uniqueName("asker");
  const probe = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({ name, title: "Clarify first", orchestrator: planner }),
  });
  assert.equal(probe.status, 201);
  if (!("paused" in (await api(`/api/features/${name}`)).body)) return; // no clarify on this server: nothing asks
  await createAgent(asker, { runtime: { tools: ["plan.ask", "plan.write", "plan.read"] } });
  const other = uniqueName("clar").slice(0, 40);
  assert.equal(
    (
      await api("/api/features", {
        method: "POST",
        body: JSON.stringify({ name: other, title: "Asked before planning", orchestrator: asker }),
      })
    ).status,
    201,
  );
  const asked = await api(`/api/agents/${asker}/tools/plan.ask/invoke`, {
    method: "POST",
    body: JSON.stringify({ arguments: { feature: other, question: "Which browsers must the login page support?" } }),
  });
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  const page = b.page;
  await page.goto("/#/approvals");
  const card = page.locator("pantheon-approvals article", { hasText: "Which browsers must the login page support?" });
  await card.getByRole("link", { name: `feature ${other}` }).waitFor();
  await card.getByRole("link", { name: "its plan" }).waitFor();
  assert.equal(await card.getByRole("button", { name: "Approve" }).count(), 0, "a question is answered, not approved");
  await card.getByLabel("Your answer").fill("The last two versions of each");
  await card.getByRole("button", { name: "Send answer" }).click();
  await card.waitFor({ state: "detached" });
  // The question is answered (GET …/questions lists every question with its answer) and has left the inbox.
  const all = (await api(`/api/features/${other}/questions`)).body;
  assert.equal(
    all.questions.find((q) => q.question.startsWith("Which browsers"))?.answer,
    "The last two versions of each",
    JSON.stringify(all),
  );
  const inbox = (await api("/api/approvals")).body;
  assert.equal(JSON.stringify(inbox).includes("Which browsers"), false, JSON.stringify(inbox).slice(0, 500));
});

test("the plan's review page shows its analysis (each task traced, what has no task) where the server analyses plans", async () => {
  const name = uniqueName("traced").slice(0, 40);
  assert.equal(
    (
      await api("/api/features", {
        method: "POST",
        body: JSON.stringify({ name, title: "Traced", orchestrator: planner }),
      })
    ).status,
    201,
  );
  const markdown =
    "# Login\n\n## Login form\n\nA form.\n\n## Rate limit\n\nFive a minute.\n\n## Tasks\n\n1. Form — build the login form\n";
  assert.equal(
    (await api(`/api/features/${name}/plan`, { method: "PUT", body: JSON.stringify({ markdown }) })).status,
    200,
  );
  const analysed = "analysis" in (await api(`/api/features/${name}/plan`)).body;
  const page = b.page;
  await page.goto(`/#/features/${name}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("heading", { name: "Plan v1" }).waitFor();
  const card = review.getByRole("region", { name: "Plan ⇄ tasks" });
  if (!analysed) {
    assert.equal(await card.count(), 0, "no analysis shown where the server gives none");
    return;
  }
  await card.getByText("section 'Rate limit' has no task").waitFor();
  await card.locator(".badge", { hasText: "1 finding" }).waitFor();
  await card.getByText("Each task and what it carries out").click();
  await card.getByText("Task 1 Form: Login form").waitFor();
  assert.deepEqual(await axe(page), []);
});
