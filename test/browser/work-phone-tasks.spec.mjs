// The Work views on a phone (issue 28 item 9), working through a feature's tasks, with data made
// through the API on the offline model: Blocked on top of the board with empty columns folded, Start
// for whoever may, a question in the inbox linked to its feature and task, committed file content,
// commits, a merge conflict and its form, Run all and the pause switch, and one way to show a price.
// Reviewing the plan is work-phone-plan.spec.mjs; the plan and the helpers both use are in
// work-phone-kit.mjs (task by task, what the offline model does).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shoot, uniqueName } from "./harness.mjs";
import { invited, planV1, plannerTools, question, taskUntil, tokenOf } from "./work-phone-kit.mjs";

const planner = uniqueName("planner");
const feature = uniqueName("limits").slice(0, 40);

let b;
/** An invited person with a chat token: may read the board, not start tasks. */
let ada;

before(async () => {
  await createAgent(planner, { runtime: { tools: plannerTools } });
  const created = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({ name: feature, title: "Login limits", orchestrator: planner }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(
    (await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: planV1 }) })).status,
    200,
  );
  // Approved through the API: approving on the page is work-phone-plan.spec.mjs's.
  assert.equal((await api(`/api/features/${feature}/plan/approve`, { method: "POST", body: "{}" })).status, 200);
  ada = await invited("Ada Reviewer", "chat");
  b = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await b?.close();
});

test("the board on a phone: Blocked on top, empty columns folded, cards say what is true, Start for an admin", async () => {
  assert.equal((await api(`/api/features/${feature}/tasks/sync`, { method: "POST" })).status, 200);
  for (const n of [1, 2])
    assert.equal((await api(`/api/features/${feature}/tasks/${n}/start`, { method: "POST" })).status, 202);
  await taskUntil(feature, 2, (t) => t.status === "blocked", "blocked");
  await taskUntil(feature, 1, (t) => t.status === "partial", "partial");
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
  await board
    .locator("li.task", { hasText: "#3 Docs" })
    .locator(".badge", { hasText: /in progress|partial|done/ })
    .waitFor();
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
    assert.equal(
      (
        await api("/api/features", {
          method: "POST",
          body: JSON.stringify({ name: pendingFeature, title: "Pending work", orchestrator: planner }),
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await api(`/api/features/${pendingFeature}/plan`, {
          method: "PUT",
          body: JSON.stringify({ markdown: "# P\n\n## Tasks\n\n1. One — a task\n" }),
        })
      ).status,
      200,
    );
    assert.equal(
      (await api(`/api/features/${pendingFeature}/plan/approve`, { method: "POST", body: "{}" })).status,
      200,
    );
    assert.equal((await api(`/api/features/${pendingFeature}/tasks/sync`, { method: "POST" })).status, 200);
    await reader.page.goto(`/#/features/${pendingFeature}`);
    const board = reader.page.locator("pantheon-task-board");
    await board.locator("li.task", { hasText: "#1 One" }).waitFor();
    await board
      .getByRole("status")
      .getByText(/refreshed \d/)
      .waitFor();
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
  assert.ok(
    signOut && signOut.x + signOut.width <= PHONE.width,
    `the sign-out button ends at ${signOut && signOut.x + signOut.width}px`,
  );
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
    assert.equal(
      await board.getByRole("link", { name: "Commits" }).count(),
      0,
      "no link to a route the server does not have",
    );
    // The repository routes are not on this server yet: the views are shown with the contract's
    // shapes through a route stub (only for these two routes, which do not exist here).
    const sha = "3f9a1c2b7d4e5f60718293a4b5c6d7e8f9012345";
    await page.route(`**/api/features/${feature}/commits?*`, (r) =>
      r.fulfill({
        json: {
          commits: [
            {
              sha,
              message: "Notes: write the notes file\n\nfeature: x",
              author: { name: `${feature}-task-1`, email: "w@pantheon" },
              date: Date.now(),
              parents: ["0".repeat(40)],
              task: 1,
            },
          ],
        },
      }),
    );
    await page.route(`**/api/features/${feature}/commits/${sha}/diff`, (r) =>
      r.fulfill({
        json: {
          files: [
            {
              path: "notes.md",
              status: "added",
              additions: 2,
              deletions: 0,
              patch: "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+hello from task one\n+second line",
            },
          ],
        },
      }),
    );
    await page.goto(`/#/features/${feature}/commits`);
  } else {
    await board.getByRole("link", { name: "Commits" }).click();
  }
  const list = page.locator("pantheon-commits");
  const first = list.getByRole("list", { name: "Commits, newest first" }).locator("li").first();
  await first.waitFor();
  await first.locator("a.msg").click();
  const commit = page.locator("pantheon-commit-view");
  await commit
    .getByRole("region", { name: /notes\.md/ })
    .locator(".add", { hasText: "+hello from task one" })
    .waitFor();
  assert.deepEqual(await axe(page), []);
  await shoot(page, "work-phone-commit");
  assert.deepEqual(b.errors.map(String), []);
});

test("a merge conflict is resolved on the task's page where the server gives both sides; hidden where it does not", async () => {
  for (const n of [4, 5])
    assert.equal((await api(`/api/features/${feature}/tasks/${n}/start`, { method: "POST" })).status, 202);
  for (const n of [4, 5]) await taskUntil(feature, n, (t) => t.status === "partial", "partial");
  assert.equal(
    (await api(`/api/features/${feature}/tasks/4/commit`, { method: "POST", body: "{}" })).body.committed,
    true,
  );
  const second = await api(`/api/features/${feature}/tasks/5/commit`, { method: "POST", body: "{}" });
  assert.notEqual(second.body.committed, true, JSON.stringify(second.body));
  const detail = await taskUntil(feature, 5, (t) => t.status === "blocked", "blocked by the conflict");
  const page = b.page;
  await page.goto(`/#/features/${feature}/tasks/5`);
  const view = page.locator("pantheon-task-view");
  await view.getByRole("heading", { name: "Task 5: Shared B" }).waitFor();
  const form = view.locator("pantheon-task-conflict");
  if (!detail.conflict) {
    // This server keeps no merge sides: the page offers the answer, not a resolution form.
    await view
      .getByRole("note")
      .getByText(/shared\.md/)
      .waitFor();
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
      feature: "f",
      task: 5,
      files: [
        {
          path: "shared.md",
          ours: "from A\n",
          theirs: "from B\n",
          base: "",
          marked: "<<<<<<< ours\nfrom A\n=======\nfrom B\n>>>>>>> theirs\n",
        },
        {
          path: "notes.md",
          ours: "one\n",
          theirs: "two\n",
          base: "",
          marked: "<<<<<<< ours\none\n=======\ntwo\n>>>>>>> theirs\n",
        },
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
  await form
    .getByRole("group", { name: "Take one side of notes.md" })
    .getByRole("button", { name: "Keep this task's" })
    .click();
  await commit.click();
  assert.deepEqual(await page.evaluate(() => window.__resolved), [
    {
      feature: "f",
      task: 5,
      files: [
        { path: "shared.md", content: "from A\nfrom B\n" },
        { path: "notes.md", content: "two\n" },
      ],
    },
  ]);
  await page.evaluate(() => document.getElementById("probe")?.remove());
});

/** A feature with an approved plan of two tasks, synced: ready to run. */
async function readyFeature(prefix, title) {
  const name = uniqueName(prefix).slice(0, 40);
  assert.equal(
    (await api("/api/features", { method: "POST", body: JSON.stringify({ name, title, orchestrator: planner }) }))
      .status,
    201,
  );
  const plan = [
    "# Run",
    "",
    "## Tasks",
    "",
    "1. First — write one file",
    '   /tool fs.write {"path":"one.md","content":"one\\n"}',
    "2. Second — write another",
    '   /tool fs.write {"path":"two.md","content":"two\\n"}',
    "",
  ].join("\n");
  assert.equal(
    (await api(`/api/features/${name}/plan`, { method: "PUT", body: JSON.stringify({ markdown: plan }) })).status,
    200,
  );
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
  await board
    .locator("li.task", { hasText: "#1 First" })
    .locator(".badge", { hasText: /in progress|partial|done/ })
    .waitFor();
  assert.equal((await api(`/api/features/${name}`)).body.paused, false);
  assert.notEqual(
    (await api(`/api/features/${name}/tasks/1`)).body.status,
    "pending",
    "run all started the first task",
  );
  await shoot(page, "work-phone-run-all");
});
