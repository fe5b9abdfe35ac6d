// The Work views on a phone (issue 28 item 9), with data made through the API on the offline model:
// what needs a person first, a plan's changes since the last version with the earlier comments
// beside their lines (authors by name), approving with open comments confirmed, Blocked on top of
// the board with empty columns folded, Start for whoever may, a question in the inbox linked to its
// feature and task, committed file content, commits, and one way to show a price.
//
// The offline model calls a tool when its prompt has a `/tool <name> <json>` line: task 1's worker
// writes notes.md (an uncommitted change), task 2's asks a question (a blocked task), task 3 waits,
// tasks 4 and 5 write the same file (the second to commit conflicts).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE_URL, PHONE, api, axe, createAgent, launchSignedIn, shoot, uniqueName } from "./harness.mjs";

const planner = uniqueName("planner");
const feature = uniqueName("limits").slice(0, 40);
const newer = uniqueName("newer").slice(0, 40);
const question = "How many login attempts a minute should we allow?";
const planV1 = [
  "# Login limits",
  "",
  "Limit login attempts.",
  "",
  "## Tasks",
  "",
  "1. Notes — write the notes file",
  '   /tool fs.write {"path":"notes.md","content":"hello from task one\\nsecond line\\n"}',
  "2. Limits — ask a person about the login limit",
  `   /tool task.block {"question":"${question}"}`,
  "3. Docs — write the docs",
  '   /tool fs.write {"path":"docs.md","content":"docs\\n"}',
  "4. Shared A — write the shared file",
  '   /tool fs.write {"path":"shared.md","content":"from A\\n"}',
  "5. Shared B — write the shared file too",
  '   /tool fs.write {"path":"shared.md","content":"from B\\n"}',
  "",
].join("\n");
// v2 rewrites line 3 (its comment is answered) and keeps line 9 (its comment stays open).
const planV2 = planV1.replace("Limit login attempts.", "Limit login attempts per account and per address.");

let b;
/** The person an invite names, and a plain token: the two kinds of comment author. */
let ada;
let plain;

async function tokenOf(name, scope) {
  const res = await api("/api/tokens", { method: "POST", body: JSON.stringify({ name, scope }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

async function invited(name, scope) {
  const invite = await api("/api/invites", { method: "POST", body: JSON.stringify({ name, scope }) });
  assert.equal(invite.status, 201, JSON.stringify(invite.body));
  const res = await fetch(`${BASE_URL}/api/invites/redeem`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: invite.body.code }) });
  assert.equal(res.status, 201);
  return (await res.json()).token;
}

async function as(token, path, init = {}) {
  return api(path, { ...init, headers: { authorization: `Bearer ${token}` } });
}

async function taskUntil(number, check, what) {
  let last;
  for (let i = 0; i < 200; i++) {
    last = (await api(`/api/features/${feature}/tasks/${number}`)).body;
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${number} never became ${what}: ${JSON.stringify(last?.status)}`);
}

before(async () => {
  await createAgent(planner, { runtime: { tools: ["feature.create", "plan.write", "plan.read", "tasks.sync", "task.start", "task.discard", "status", "fs.list", "fs.read"] } });
  // The feature under review is made first; a newer one with an approved plan after it.
  for (const [name, title] of [[feature, "Login limits"], [newer, "Newer, nothing to do"]]) {
    const created = await api("/api/features", { method: "POST", body: JSON.stringify({ name, title, orchestrator: planner }) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  assert.equal((await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: planV1 }) })).status, 200);
  assert.equal((await api(`/api/features/${newer}/plan`, { method: "PUT", body: JSON.stringify({ markdown: "# Newer\n\n## Tasks\n\n1. One — the only task\n" }) })).status, 200);
  assert.equal((await api(`/api/features/${newer}/plan/approve`, { method: "POST", body: "{}" })).status, 200);
  ada = await invited("Ada Reviewer", "chat");
  plain = await tokenOf(uniqueName("h5-chat"), "chat");
  assert.equal((await as(ada, `/api/features/${feature}/plan/comments`, { method: "POST", body: JSON.stringify({ line: 3, body: "Per account or per address?" }) })).status, 201);
  assert.equal((await as(plain, `/api/features/${feature}/plan/comments`, { method: "POST", body: JSON.stringify({ line: 9, body: "Say the number before we start" }) })).status, 201);
  assert.equal((await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: planV2 }) })).status, 200);
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
  assert.ok(titles.indexOf("Login limits") < titles.indexOf("Newer, nothing to do"), `older but waiting comes first: ${titles.join(" | ")}`);
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
  await changes.locator('li.change.same[data-old="9"][data-new="9"] article.comment').getByText("Say the number before we start").waitFor();
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
  assert.equal((await api("/api/features", { method: "POST", body: JSON.stringify({ name: other, title: "Quiet", orchestrator: planner }) })).status, 201);
  assert.equal((await api(`/api/features/${other}/plan`, { method: "PUT", body: JSON.stringify({ markdown: "# Quiet\n\n## Tasks\n\n1. One — a task\n" }) })).status, 200);
  const page = b.page;
  await page.goto(`/#/features/${other}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("button", { name: "Approve v1" }).click();
  await review.locator(".badge", { hasText: "approved" }).waitFor();
  assert.equal(await review.getByRole("alertdialog").count(), 0);
});

test("the board on a phone: Blocked on top, empty columns folded, cards say what is true, Start for an admin", async () => {
  assert.equal((await api(`/api/features/${feature}/tasks/sync`, { method: "POST" })).status, 200);
  for (const n of [1, 2]) assert.equal((await api(`/api/features/${feature}/tasks/${n}/start`, { method: "POST" })).status, 202);
  await taskUntil(2, (t) => t.status === "blocked", "blocked");
  await taskUntil(1, (t) => t.status === "partial", "partial");
  const page = b.page;
  await page.goto(`/#/features/${feature}`);
  const board = page.locator("pantheon-task-board");
  await board.locator('[data-column="blocked"]').locator("li.task", { hasText: "#2 Limits" }).waitFor();
  await board.getByRole("note", { name: "Needs a person" }).getByText("1 task blocked").waitFor();
  const columns = await board.locator("section.column").evaluateAll((s) => s.map((x) => x.getAttribute("data-column")));
  assert.equal(columns[0], "blocked", columns.join(","));
  assert.ok(!columns.includes("done") && !columns.includes("in_progress"), "empty columns are folded");
  assert.match(await board.locator("[data-folded]").innerText(), /Nothing in progress, done\./);
  const blockedBox = await board.locator('[data-column="blocked"]').boundingBox();
  assert.ok(blockedBox && blockedBox.y < PHONE.height, "Blocked is on the first screen of a phone");
  const notes = board.locator("li.task", { hasText: "#1 Notes" });
  assert.match(await notes.innerText(), /1 uncommitted change/);
  assert.doesNotMatch(await notes.innerText(), /no changes/i);
  // Start on the pending card (the admin may); the task moves on from Pending.
  await board.getByRole("button", { name: "Start task 3" }).click();
  await board.locator("li.task", { hasText: "#3 Docs" }).locator(".badge", { hasText: /in progress|partial|done/ }).waitFor();
  // Run all is offered where the server runs features unattended, and hidden where it does not.
  const flow = "paused" in (await api(`/api/features/${feature}`)).body;
  if (!flow) assert.equal(await board.getByRole("button", { name: "Run all" }).count(), 0);
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-phone-board");
});

test("a token that may not start tasks sees no Start on the board", async () => {
  const reader = await launchSignedIn({ viewport: PHONE, token: ada });
  try {
    const pendingFeature = uniqueName("pend").slice(0, 40);
    assert.equal((await api("/api/features", { method: "POST", body: JSON.stringify({ name: pendingFeature, title: "Pending work", orchestrator: planner }) })).status, 201);
    assert.equal((await api(`/api/features/${pendingFeature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: "# P\n\n## Tasks\n\n1. One — a task\n" }) })).status, 200);
    assert.equal((await api(`/api/features/${pendingFeature}/plan/approve`, { method: "POST", body: "{}" })).status, 200);
    assert.equal((await api(`/api/features/${pendingFeature}/tasks/sync`, { method: "POST" })).status, 200);
    await reader.page.goto(`/#/features/${pendingFeature}`);
    const board = reader.page.locator("pantheon-task-board");
    await board.locator("li.task", { hasText: "#1 One" }).waitFor();
    await board.getByRole("status").getByText(/refreshed \d/).waitFor();
    assert.equal(await board.getByRole("button", { name: /^Start/ }).count(), 0);
    // Positive control: the admin's board offers it.
    await b.page.goto(`/#/features/${pendingFeature}`);
    await b.page.locator("pantheon-task-board").getByRole("button", { name: "Start task 1" }).waitFor();
  } finally {
    await reader.close();
  }
});

test("a question in the inbox links to its feature and task", async () => {
  const page = b.page;
  await page.goto("/#/approvals");
  const card = page.locator("pantheon-approvals article", { hasText: question });
  await card.waitFor();
  await card.getByRole("link", { name: `feature ${feature}` }).waitFor();
  // With the inbox's count in the header, every header control still fits a phone's width.
  await page.locator("pantheon-app nav .count").waitFor();
  const signOut = await page.getByRole("button", { name: /^Sign out/ }).boundingBox();
  assert.ok(signOut && signOut.x + signOut.width <= PHONE.width, `the sign-out button ends at ${signOut && signOut.x + signOut.width}px`);
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-phone-inbox");
  await card.getByRole("link", { name: "task 2" }).click();
  await page.locator("pantheon-task-view").getByRole("heading", { name: "Task 2: Limits" }).waitFor();
  assert.match(page.url(), new RegExp(`#/features/${feature}/tasks/2$`));
});

test("committed file content is readable, and a price reads one way", async () => {
  const committed = await api(`/api/features/${feature}/tasks/1/commit`, { method: "POST", body: "{}" });
  assert.equal(committed.body.committed, true, JSON.stringify(committed.body));
  const page = b.page;
  await page.goto(`/#/features/${feature}/tasks/1`);
  const view = page.locator("pantheon-task-view");
  await view.getByLabel("Committed files").getByRole("link", { name: "notes.md" }).click();
  const files = page.locator("pantheon-feature-files");
  const content = files.getByRole("region", { name: "Content of notes.md" });
  await content.getByText("hello from task one").waitFor();
  assert.deepEqual((await content.locator("li").allInnerTexts()).slice(0, 2), ["hello from task one", "second line"]);
  await shoot(page, "work-phone-file");
  await files.getByRole("link", { name: "← Files" }).click();
  await files.getByRole("region", { name: "Committed files" }).getByRole("link", { name: "notes.md" }).waitFor();
  assert.deepEqual(await axe(page), []);

  // The task's cost: one label, never "$0.0000" (and a task without runs says so).
  await page.goto(`/#/features/${feature}/tasks/1`);
  const cost = view.locator("dt", { hasText: "Cost" }).locator("xpath=following-sibling::dd[1]");
  assert.match(await cost.innerText(), /^(not priced|\$\d[\d.]*|under \$0\.0001)$/);
  assert.doesNotMatch(await view.innerText(), /\$0\.0000/);
  await page.goto(`/#/features/${feature}`);
  const board = page.locator("pantheon-task-board");
  await board.locator("dt", { hasText: "Cost" }).waitFor();
  assert.doesNotMatch(await board.innerText(), /\$0\.0000/);
});

test("commits: the link shows only where the server keeps git history; the list and a commit's diff read on a phone", async () => {
  const page = b.page;
  const real = await api(`/api/features/${feature}/commits`);
  await page.goto(`/#/features/${feature}`);
  const board = page.locator("pantheon-task-board");
  await board.getByRole("link", { name: "Files" }).waitFor();
  if (real.status === 404) {
    assert.equal(await board.getByRole("link", { name: "Commits" }).count(), 0, "no link to a route the server does not have");
    // The repository routes are not on this server yet: the views are shown with the contract's
    // shapes through a route stub (only for these two routes, which do not exist here).
    const sha = "3f9a1c2b7d4e5f60718293a4b5c6d7e8f9012345";
    await page.route(`**/api/features/${feature}/commits?*`, (r) => r.fulfill({ json: { commits: [{ sha, message: "Notes: write the notes file\n\nfeature: x", author: { name: `${feature}-task-1`, email: "w@pantheon" }, date: Date.now(), parents: ["0".repeat(40)], task: 1 }] } }));
    await page.route(`**/api/features/${feature}/commits/${sha}/diff`, (r) => r.fulfill({ json: { files: [{ path: "notes.md", status: "added", additions: 2, deletions: 0, patch: "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+hello from task one\n+second line" }] } }));
    await page.goto(`/#/features/${feature}/commits`);
  } else {
    await board.getByRole("link", { name: "Commits" }).click();
  }
  const list = page.locator("pantheon-commits");
  const first = list.getByRole("list", { name: "Commits, newest first" }).locator("li").first();
  await first.waitFor();
  await first.locator("a.msg").click();
  const commit = page.locator("pantheon-commit-view");
  await commit.getByRole("region", { name: /notes\.md/ }).locator(".add", { hasText: "+hello from task one" }).waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-phone-commit");
  assert.deepEqual(b.errors.map(String), []);
});

test("a merge conflict is resolved on the task's page where the server gives both sides; hidden where it does not", async () => {
  for (const n of [4, 5]) assert.equal((await api(`/api/features/${feature}/tasks/${n}/start`, { method: "POST" })).status, 202);
  for (const n of [4, 5]) await taskUntil(n, (t) => t.status === "partial", "partial");
  assert.equal((await api(`/api/features/${feature}/tasks/4/commit`, { method: "POST", body: "{}" })).body.committed, true);
  const second = await api(`/api/features/${feature}/tasks/5/commit`, { method: "POST", body: "{}" });
  assert.notEqual(second.body.committed, true, JSON.stringify(second.body));
  const detail = await taskUntil(5, (t) => t.status === "blocked", "blocked by the conflict");
  const page = b.page;
  await page.goto(`/#/features/${feature}/tasks/5`);
  const view = page.locator("pantheon-task-view");
  await view.getByRole("heading", { name: "Task 5: Shared B" }).waitFor();
  const form = view.locator("pantheon-task-conflict");
  if (!detail.conflict) {
    // This server keeps no merge sides: the page offers the answer, not a resolution form.
    await view.getByRole("note").getByText(/shared\.md/).waitFor();
    assert.equal(await form.count(), 0);
    return;
  }
  const text = form.getByRole("textbox", { name: "shared.md" });
  assert.match(await text.inputValue(), /^<{7}/m);
  const commit = form.getByRole("button", { name: "Commit the resolution" });
  assert.equal(await commit.isDisabled(), true, "markers left: nothing is sent");
  await text.fill("from A\nfrom B\n");
  await commit.click();
  await form.waitFor({ state: "detached" });
  const resolved = (await api(`/api/features/${feature}/tasks/5`)).body;
  assert.ok(!resolved.conflict, JSON.stringify(resolved.conflict));
  await shoot(page, "work-phone-resolved");
});

test("the conflict form sends nothing while markers are left, and sends the files as edited or as one side", async () => {
  // The form itself, as the app bundle defines it, given a conflict of the contract's shape: the
  // server's part is covered above where the server gives conflicts; this is what a person does.
  const page = b.page;
  await page.goto("/#/features");
  await page.locator("pantheon-features").getByRole("heading", { name: "Work" }).waitFor();
  await page.evaluate(() => {
    const el = document.createElement("pantheon-task-conflict");
    el.id = "probe";
    Object.assign(el, {
      feature: "f", task: 5,
      files: [
        { path: "shared.md", ours: "from A\n", theirs: "from B\n", base: "", marked: "<<<<<<< ours\nfrom A\n=======\nfrom B\n>>>>>>> theirs\n" },
        { path: "notes.md", ours: "one\n", theirs: "two\n", base: "", marked: "<<<<<<< ours\none\n=======\ntwo\n>>>>>>> theirs\n" },
      ],
    });
    window.__resolved = [];
    el.addEventListener("task-resolve", (e) => window.__resolved.push(e.detail));
    document.body.append(el);
  });
  const form = page.locator("pantheon-task-conflict#probe");
  const commit = form.getByRole("button", { name: "Commit the resolution" });
  await form.getByText("Conflict markers left in shared.md, notes.md.").waitFor();
  assert.equal(await commit.isDisabled(), true);
  await form.getByRole("textbox", { name: "shared.md" }).fill("from A\nfrom B\n");
  await form.getByText("Conflict markers left in notes.md.").waitFor();
  assert.equal(await commit.isDisabled(), true, "one file still marked");
  await form.getByRole("group", { name: "Take one side of notes.md" }).getByRole("button", { name: "Keep this task's" }).click();
  await commit.click();
  assert.deepEqual(await page.evaluate(() => window.__resolved), [
    { feature: "f", task: 5, files: [{ path: "shared.md", content: "from A\nfrom B\n" }, { path: "notes.md", content: "two\n" }] },
  ]);
  await page.evaluate(() => document.getElementById("probe")?.remove());
});

/** A feature with an approved plan of two tasks, synced: ready to run. */
async function readyFeature(prefix, title) {
  const name = uniqueName(prefix).slice(0, 40);
  assert.equal((await api("/api/features", { method: "POST", body: JSON.stringify({ name, title, orchestrator: planner }) })).status, 201);
  const plan = ["# Run", "", "## Tasks", "", "1. First — write one file", '   /tool fs.write {"path":"one.md","content":"one\\n"}', "2. Second — write another", '   /tool fs.write {"path":"two.md","content":"two\\n"}', ""].join("\n");
  assert.equal((await api(`/api/features/${name}/plan`, { method: "PUT", body: JSON.stringify({ markdown: plan }) })).status, 200);
  assert.equal((await api(`/api/features/${name}/plan/approve`, { method: "POST", body: "{}" })).status, 200);
  assert.equal((await api(`/api/features/${name}/tasks/sync`, { method: "POST" })).status, 200);
  return name;
}

test("Run all and the pause switch: offered where the server runs features unattended, to whoever may", async () => {
  const name = await readyFeature("runall", "Run it all");
  const flow = "paused" in (await api(`/api/features/${name}`)).body;
  const page = b.page;
  await page.goto(`/#/features/${name}`);
  const board = page.locator("pantheon-task-board");
  await board.locator("li.task", { hasText: "#1 First" }).waitFor();
  await board.getByRole("button", { name: "Start task 1" }).waitFor();
  if (!flow) {
    // This server has no run-all or pause routes: their controls are not shown.
    assert.equal(await board.getByRole("group", { name: "Feature actions" }).count(), 0);
    return;
  }
  // An approver may pull the brake, not run everything; the admin may do both.
  const approver = await launchSignedIn({ viewport: PHONE, token: await tokenOf(uniqueName("approver"), "approve") });
  try {
    await approver.page.goto(`/#/features/${name}`);
    const theirs = approver.page.locator("pantheon-task-board");
    await theirs.getByRole("button", { name: "Pause" }).waitFor();
    assert.equal(await theirs.getByRole("button", { name: "Run all" }).count(), 0);
  } finally {
    await approver.close();
  }
  await board.getByRole("button", { name: "Pause" }).click();
  await board.getByRole("button", { name: "Resume" }).waitFor();
  assert.equal((await api(`/api/features/${name}`)).body.paused, true);
  await board.getByRole("button", { name: "Resume" }).click();
  await board.getByRole("button", { name: "Run all" }).click();
  await board.locator("li.task", { hasText: "#1 First" }).locator(".badge", { hasText: /in progress|partial|done/ }).waitFor();
  assert.equal((await api(`/api/features/${name}`)).body.paused, false);
  assert.notEqual((await api(`/api/features/${name}/tasks/1`)).body.status, "pending", "run all started the first task");
  await shoot(page, "work-phone-run-all");
});

test("the planner's question about the plan is answered from the inbox, linked to its feature", async () => {
  const name = uniqueName("clarify").slice(0, 40);
  const asker = uniqueName("asker");
  const probe = await api("/api/features", { method: "POST", body: JSON.stringify({ name, title: "Clarify first", orchestrator: planner }) });
  assert.equal(probe.status, 201);
  if (!("paused" in (await api(`/api/features/${name}`)).body)) return; // no clarify on this server: nothing asks
  await createAgent(asker, { runtime: { tools: ["plan.ask", "plan.write", "plan.read"] } });
  const other = uniqueName("clar").slice(0, 40);
  assert.equal((await api("/api/features", { method: "POST", body: JSON.stringify({ name: other, title: "Asked before planning", orchestrator: asker }) })).status, 201);
  const asked = await api(`/api/agents/${asker}/tools/plan.ask/invoke`, { method: "POST", body: JSON.stringify({ arguments: { feature: other, question: "Which browsers must the login page support?" } }) });
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
  assert.equal(all.questions.find((q) => q.question.startsWith("Which browsers"))?.answer, "The last two versions of each", JSON.stringify(all));
  const inbox = (await api("/api/approvals")).body;
  assert.equal(JSON.stringify(inbox).includes("Which browsers"), false, JSON.stringify(inbox).slice(0, 500));
});

test("the plan's review page shows its analysis (each task traced, what has no task) where the server analyses plans", async () => {
  const name = uniqueName("traced").slice(0, 40);
  assert.equal((await api("/api/features", { method: "POST", body: JSON.stringify({ name, title: "Traced", orchestrator: planner }) })).status, 201);
  const markdown = "# Login\n\n## Login form\n\nA form.\n\n## Rate limit\n\nFive a minute.\n\n## Tasks\n\n1. Form — build the login form\n";
  assert.equal((await api(`/api/features/${name}/plan`, { method: "PUT", body: JSON.stringify({ markdown }) })).status, 200);
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
