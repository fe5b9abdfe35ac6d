// The Work area: a plan reviewed line by line and approved, the task board following tasks live,
// a task's spec, report and diff, and a worker's question answered from the approvals inbox.
//
// Under wrangler dev the agents run on the offline model, which calls a tool when its prompt has a
// `/tool <name> <json>` line: each task's description in the plan carries one, so task 1's worker
// writes a file (a diff to commit), task 2's worker asks a question (a blocked task), and tasks 3
// and 4 write the same file (the second commit conflicts).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shoot, shootBoth, uniqueName } from "./harness.mjs";
import { plannerTools } from "./work-phone-kit.mjs";

const planner = uniqueName("planner");
const feature = uniqueName("notes").slice(0, 40);
const question = "How many login attempts a minute should we allow?";
const planV1 = [
  "# Notes feature",
  "",
  "A small feature the browser tests plan, approve and work.",
  "",
  "## Tasks",
  "",
  "1. Notes — write the notes file",
  '   /tool fs.write {"path":"notes.md","content":"hello from task one\\nsecond line\\n"}',
  "2. Limits — ask a person about the login limit",
  `   /tool task.block {"question":"${question}"}`,
  "3. Shared A — write the shared file",
  '   /tool fs.write {"path":"shared.md","content":"from A\\n"}',
  "4. Shared B — write the shared file too",
  '   /tool fs.write {"path":"shared.md","content":"from B\\n"}',
  "",
].join("\n");
const planV2 = planV1.replace("A small feature", "A small, reviewed feature");

let b;

before(async () => {
  await createAgent(planner, {
    runtime: { tools: plannerTools },
  });
  const created = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({ name: feature, title: "Notes for the login page", orchestrator: planner }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await writePlan(planV1);
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

/** The planner writes a plan version (a manual call of its plan.write tool, as the API does it). */
async function writePlan(markdown) {
  const res = await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** Asks the API until `check` holds for the task (the worker's run goes on after the start answers). */
async function taskUntil(number, check, what) {
  let last;
  for (let i = 0; i < 200; i++) {
    last = (await api(`/api/features/${feature}/tasks/${number}`)).body;
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${number} never became ${what}: ${JSON.stringify(last?.status)}`);
}

test("the features list leads to a feature's page", async () => {
  const page = b.page;
  await page.goto("/#/features");
  const list = page.locator("pantheon-features");
  await list.getByRole("link", { name: "Notes for the login page" }).click();
  await page.locator("pantheon-task-board").getByText("waiting for review").waitFor();
  assert.match(page.url(), new RegExp(`#/features/${feature}$`));
  await page.goto("/#/features");
  await list.getByRole("link", { name: "Notes for the login page" }).waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-features");
});

test("a plan is reviewed line by line: a comment on a line, versions read-only, then Approve", async () => {
  const page = b.page;
  await page.goto(`/#/features/${feature}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("heading", { name: "Plan v1" }).waitFor();
  // Tap line 7 (the first task) and comment on it.
  await review.locator('li[data-line="7"] button.line').click();
  await review.getByLabel("Comment on line 7").fill("Say which file the notes go in");
  await review.getByRole("button", { name: "Comment", exact: true }).click();
  const comment = review.locator('li[data-line="7"] article.comment');
  await comment.getByText("Say which file the notes go in").waitFor();
  assert.match(await comment.locator(".who").innerText(), /admin|token/i, "the comment names its author");
  assert.equal((await api(`/api/features/${feature}/plan`)).body.comments[0].line, 7);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "work-plan-comment");

  // The planner writes version 2: it starts without comments; version 1 keeps its own, read-only.
  await writePlan(planV2);
  await page.reload();
  await review.getByRole("heading", { name: "Plan v2" }).waitFor();
  // None on v2 itself; v1's comment shows beside the line it was on (v2 kept it), marked as v1's.
  await review
    .locator('li[data-line="7"] article.comment.earlier')
    .getByText("Say which file the notes go in")
    .waitFor();
  assert.equal(await review.locator("article.comment:not(.earlier)").count(), 0);
  await review.getByLabel("Version").selectOption("1");
  await review.getByRole("heading", { name: "Plan v1" }).waitFor();
  await review.getByText("An older version: read-only").waitFor();
  await review.locator('li[data-line="7"] article.comment').waitFor();
  assert.equal(await review.locator("button.line").count(), 0, "no line of an older version takes comments");
  assert.equal(await review.getByRole("button", { name: /^Approve/ }).count(), 0, "an older version is not approved");
  await shoot(page, "work-plan-older-version");

  await review.getByRole("link", { name: "Go to the latest" }).click();
  await review.getByRole("button", { name: "Approve v2" }).click();
  // v1's comment is on a line v2 kept as it was: still open, so approving asks first.
  await review.getByRole("alertdialog").getByRole("button", { name: "Approve anyway" }).click();
  await review.locator(".badge", { hasText: "approved" }).waitFor();
  const plan = (await api(`/api/features/${feature}/plan`)).body;
  assert.equal(plan.version, 2);
  assert.equal(plan.approved, true);
  await shoot(page, "work-plan-approved");
});

test("a token without the approve scope sees no Approve button, and is told why", async () => {
  const token = await api("/api/tokens", {
    method: "POST",
    body: JSON.stringify({ name: uniqueName("reader"), scope: "chat" }),
  });
  assert.equal(token.status, 201, JSON.stringify(token.body));
  const other = uniqueName("other");
  const created = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({ name: other, title: "Waiting for review", orchestrator: planner }),
  });
  assert.equal(created.status, 201);
  const put = await api(`/api/features/${other}/plan`, {
    method: "PUT",
    body: JSON.stringify({ markdown: "# Other\n\n## Tasks\n\n1. One — the only task\n" }),
  });
  assert.equal(put.status, 200);
  const reader = await launchSignedIn({ viewport: PHONE, token: token.body.token });
  try {
    await reader.page.goto(`/#/features/${other}/plan`);
    const review = reader.page.locator("pantheon-plan-review");
    await review.getByText("Approving needs a token with the 'approve' scope.").waitFor();
    assert.equal(await review.getByRole("button", { name: /^Approve/ }).count(), 0);
    // Commenting is talking: a chat token may.
    await review.locator('li[data-line="5"] button.line').click();
    await review.getByLabel("Comment on line 5").fill("Looks fine to me");
    await review.getByRole("button", { name: "Comment", exact: true }).click();
    await review.locator('li[data-line="5"] article.comment', { hasText: "Looks fine to me" }).waitFor();
  } finally {
    await reader.close();
  }
});

test("the task board follows tasks live as they move", async () => {
  const synced = await api(`/api/features/${feature}/tasks/sync`, { method: "POST" });
  assert.equal(synced.status, 200, JSON.stringify(synced.body));
  const page = b.page;
  await page.goto(`/#/features/${feature}`);
  const board = page.locator("pantheon-task-board");
  const card = (n) => board.locator("li.task", { hasText: `#${n} ` });
  await board.locator('[data-column="pending"]').locator("li.task", { hasText: "#1 Notes" }).waitFor();
  await board.locator('[data-column="pending"]').locator("li.task", { hasText: "#2 Limits" }).waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "work-board-pending");

  // Task 1 starts from the API while the board is open: its worker writes notes.md and finishes
  // without committing; the card moves on its own, with its worker and its uncommitted file.
  const started = await api(`/api/features/${feature}/tasks/1/start`, { method: "POST" });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const moved = board.locator('[data-column="stopped"]').locator("li.task", { hasText: "#1 Notes" });
  await moved.waitFor();
  assert.match(await moved.innerText(), /partial/);
  assert.match(await moved.innerText(), new RegExp(`${feature}-task-1`));
  assert.match(await moved.innerText(), /1 uncommitted/);
  assert.equal(await card(2).locator("xpath=ancestor::section").getAttribute("data-column"), "pending");
  await shoot(page, "work-board-live");
});

test("a task's page shows its spec, report and diff, and an admin commits it", async () => {
  await taskUntil(1, (t) => t.status === "partial", "partial");
  const page = b.page;
  await page.goto(`/#/features/${feature}/tasks/1`);
  const view = page.locator("pantheon-task-view");
  await view.getByRole("heading", { name: "Task 1: Notes" }).waitFor();
  // The spec: the worker's prompt, rendered, and its budget warnings (none here).
  await view.locator(".prompt").getByText("Task 1: Notes").waitFor();
  await view.getByText("Nothing was cut.").waitFor();
  // The diff of what is not committed yet.
  const patch = view.getByLabel("Uncommitted changes as a unified diff");
  await patch.locator(".add", { hasText: "+hello from task one" }).waitFor();
  await view.getByText("Not committed: +2 −0 · 1 file").waitFor();
  // The report: its run links to the trace view.
  const trace = view.getByRole("link", { name: /^Trace of run / });
  await trace.waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "work-task-partial");

  await view.getByRole("button", { name: "Commit" }).click();
  await view.locator(".badge", { hasText: "done" }).first().waitFor();
  await view.getByLabel("Committed files").getByText("notes.md").waitFor();
  await view.getByText("Committed: +2 −0 · 1 file").waitFor();
  assert.equal(await view.getByRole("button", { name: "Commit" }).count(), 0);
  const file = (await api(`/api/features/${feature}/files/content?path=notes.md`)).body;
  assert.equal(file.content, "hello from task one\nsecond line\n");
  await shoot(page, "work-task-committed");

  await trace.click();
  await page
    .locator("pantheon-run-trace")
    .getByRole("heading", { name: /Run trace/ })
    .waitFor();
  assert.match(page.url(), new RegExp(`#/agents/${feature}-task-1/runs/`));
});

test("a worker's question waits in the approvals inbox, and the answer lets its run go on", async () => {
  const started = await api(`/api/features/${feature}/tasks/2/start`, { method: "POST" });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  await taskUntil(2, (t) => t.status === "blocked", "blocked");
  const page = b.page;
  await page.goto(`/#/features/${feature}/tasks/2`);
  await page.locator("pantheon-task-view").getByRole("note").getByText(question).waitFor();
  await page.goto("/#/approvals");
  const card = page.locator("pantheon-approvals article", { hasText: `${feature}-task-2` });
  await card.getByText(question).waitFor();
  assert.equal(await card.getByRole("button", { name: "Approve" }).count(), 0, "a question is answered, not approved");
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "work-question");

  await card.getByLabel("Your answer").fill("Five a minute, then a short lockout");
  await card.getByRole("button", { name: "Send answer" }).click();
  await card.waitFor({ state: "detached" });
  const task = await taskUntil(
    2,
    (t) => t.status !== "blocked" && t.status !== "in_progress",
    "settled after the answer",
  );
  assert.equal(task.answer, "Five a minute, then a short lockout");
  assert.equal(task.runIds.length, 1, "the same run went on");
  const run = (await api(`/api/agents/${feature}-task-2/runs/${task.runIds[0]}`)).body;
  assert.equal(run.run.status, "completed");
  assert.deepEqual(b.errors.map(String), []);
});

test("a task blocked by a commit conflict says which files, and is answered on its page", async () => {
  for (const n of [3, 4])
    assert.equal((await api(`/api/features/${feature}/tasks/${n}/start`, { method: "POST" })).status, 202);
  for (const n of [3, 4]) await taskUntil(n, (t) => t.status === "partial", "partial");
  const first = await api(`/api/features/${feature}/tasks/3/commit`, { method: "POST", body: JSON.stringify({}) });
  assert.equal(first.body.committed, true);
  const page = b.page;
  await page.goto(`/#/features/${feature}/tasks/4`);
  const view = page.locator("pantheon-task-view");
  await view.getByRole("button", { name: "Commit" }).click();
  await view.getByRole("alert").getByText("Not committed: shared.md changed in another task meanwhile.").waitFor();
  const note = view.getByRole("note");
  await note.getByText(/shared\.md/).waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-task-conflict");
  if ((await api(`/api/features/${feature}/tasks/4`)).body.conflict) {
    // A server that merges for real gives both sides: the page resolves (work-phone-tasks.spec.mjs), not answers.
    await view.locator("pantheon-task-conflict").getByRole("button", { name: "Commit the resolution" }).waitFor();
    assert.equal(await note.getByLabel("Your answer").count(), 0);
    return;
  }
  await note.getByText(/commit blocked: a file was changed by another task meanwhile: shared\.md/).waitFor();
  // No run waits on this question, so it is not in the inbox: the task's page takes the answer.
  await note.getByLabel("Your answer").fill("Keep B's line after A's");
  await note.getByRole("button", { name: "Send answer" }).click();
  await note.waitFor({ state: "detached" });
  await view.getByText("Answered by").waitFor();
  const task = (await api(`/api/features/${feature}/tasks/4`)).body;
  // Unblocked; with no worker run going on (its run had ended), the board settles it as partial again.
  assert.ok(["in_progress", "partial"].includes(task.status), task.status);
  assert.equal(task.answer, "Keep B's line after A's");
  assert.deepEqual(b.errors.map(String), []);
});
