// Work as git from a phone (issue 45): a person imports a repository on the Work page (its URL, its
// branch, the secret by name from this project's own), the plan is reviewed and approved, Run all
// works it, and the work leaves from the feature's page: Push, Open pull request, Download, with
// the clone URL and its copy button. The remote is a real `git http-backend` on loopback behind a
// token, with a GitHub API stand-in set as the project's forge. Refusals beside their controls: a
// token the remote refuses is named, another project's secret is not offered and is refused, and a
// chat-scope person sees no Push and is refused by the route. Screenshots go to test-results/screenshots.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gitCli, startGitServer } from "../doubles/git-server.mjs";
import { PHONE, SHOTS, api, axe, createAgent, launchSignedIn, shoot, uniqueName } from "./harness.mjs";
import { as, invited, plannerTools, taskUntil } from "./work-phone-kit.mjs";

const planner = uniqueName("shipper");
const feature = uniqueName("greet").slice(0, 40);
const other = uniqueName("elsewhere").slice(0, 30);
const remoteToken = `ghp_${randomBytes(12).toString("hex")}`;
const plan = [
  "# Greet",
  "",
  "Say hello in the repository.",
  "",
  "## Tasks",
  "",
  "1. Hello — write hello.md",
  '   /tool fs.write {"path":"hello.md","content":"hello from the phone\\n"}',
  "",
].join("\n");

let remote;
let b;
let url;
const shot = async (page, name) => {
  await shoot(page, name);
  console.log(`screenshot: ${join(SHOTS, `${name}-${PHONE.width}x${PHONE.height}.png`)}`);
};

before(async () => {
  remote = await startGitServer({ token: remoteToken });
  await remote.repo("acme/app", { "README.md": "# app\n" });
  url = `${remote.url}/acme/app.git`;
  for (const [name, value] of [
    ["GIT_TOKEN", remoteToken],
    ["WRONG_TOKEN", "not-the-token"],
  ])
    assert.equal(
      (await api(`/api/projects/default/secrets/${name}`, { method: "PUT", body: JSON.stringify({ value }) })).status,
      200,
    );
  // The project's forge: the stand-in's GitHub API (per project; the deployment's default stays github.com).
  const forge = await api("/api/projects/default/forge", {
    method: "PUT",
    body: JSON.stringify({ kind: "github", apiBase: `${remote.url}/api` }),
  });
  assert.equal(forge.status, 200, JSON.stringify(forge.body));
  // Another project with a secret of its own: never offered here, and refused by name.
  assert.equal((await api("/api/projects", { method: "POST", body: JSON.stringify({ slug: other }) })).status, 201);
  assert.equal(
    (
      await api(`/api/projects/${other}/secrets/OTHER_ONLY`, {
        method: "PUT",
        body: JSON.stringify({ value: remoteToken }),
      })
    ).status,
    200,
  );
  await createAgent(planner, { runtime: { tools: plannerTools } });
  b = await launchSignedIn({ viewport: PHONE, permissions: ["clipboard-read", "clipboard-write"] });
});
after(async () => {
  await b?.close();
  await api("/api/projects/default/forge", { method: "DELETE" });
  await remote?.close();
});

test("on a phone: import a repository, approve its plan, run all, push, open a pull request, download", async () => {
  const page = b.page;
  await page.goto("/#/features");
  const form = page.getByRole("form", { name: "Import a repository" });
  await form.waitFor();
  const secrets = await form.getByLabel("Token secret").locator("option").allInnerTexts();
  assert.ok(secrets.includes("GIT_TOKEN") && secrets.includes("WRONG_TOKEN"), secrets.join(","));
  assert.ok(!secrets.includes("OTHER_ONLY"), "another project's secret is not offered");
  await form.getByLabel("Repository URL").fill(url);
  await form.getByLabel("Branch").fill("main");
  await form.getByLabel("Token secret").selectOption("GIT_TOKEN");
  await form.getByLabel("Feature name").fill(feature);
  await form.getByLabel("Title").fill("Say hello");
  await form.getByLabel("Planned by").selectOption(planner);
  await shot(page, "work-phone-import-form");
  await form.getByRole("button", { name: "Import" }).click();
  await page.waitForURL(new RegExp(`#/features/${feature}$`));
  const board = page.locator("pantheon-task-board");
  await board.getByRole("heading", { name: "Say hello" }).waitFor();
  assert.equal((await api(`/api/features/${feature}/files/content?path=README.md`)).body.content, "# app\n");

  // The clone URL, and its copy button.
  const ship = board.locator("pantheon-feature-ship");
  const cloneUrl = await ship.getByLabel("Clone URL", { exact: true }).innerText();
  assert.match(cloneUrl, new RegExp(`/git/default/${feature}\\.git$`));
  await ship.getByRole("button", { name: "Copy the clone URL" }).click();
  await ship
    .getByRole("status")
    .getByText(/Copied|Selected/)
    .waitFor();
  if ((await ship.getByRole("status").innerText()).includes("Copied"))
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), cloneUrl);

  // The plan (the planner's to write), approved on the phone.
  assert.equal(
    (await api(`/api/features/${feature}/plan`, { method: "PUT", body: JSON.stringify({ markdown: plan }) })).status,
    200,
  );
  await page.goto(`/#/features/${feature}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("button", { name: "Approve v1" }).click();
  await review
    .getByText(/approved/i)
    .first()
    .waitFor();
  assert.equal((await api(`/api/features/${feature}/tasks/sync`, { method: "POST" })).status, 200);

  // Run all; the offline worker writes its file and stops (it cannot commit in the same turn), a person commits it.
  await page.goto(`/#/features/${feature}`);
  await board.getByRole("button", { name: "Run all" }).click();
  await taskUntil(feature, 1, (t) => t.status === "partial", "partial");
  await page.goto(`/#/features/${feature}/tasks/1`);
  const task = page.locator("pantheon-task-view");
  await task.getByRole("button", { name: "Commit" }).click();
  await taskUntil(feature, 1, (t) => t.status === "done", "done");

  // The work leaves: push, pull request, download.
  await page.goto(`/#/features/${feature}`);
  await ship.getByRole("button", { name: "Push" }).click();
  await ship
    .getByRole("status")
    .getByText(new RegExp(`Pushed pantheon/${feature}`))
    .waitFor();
  const pushedLog = await gitCli(["log", "--format=%s", `pantheon/${feature}`], join(remote.root, "acme/app.git"));
  assert.match(pushedLog.stdout, /Merge task 1/, "the remote has the feature branch with its merge");
  await shot(page, "work-phone-pushed");
  await ship.getByRole("button", { name: "Open pull request" }).click();
  await ship
    .getByRole("status")
    .getByText(/Pull request #7 opened/)
    .waitFor();
  assert.equal(remote.seen.pulls.at(-1)?.body?.head, `pantheon/${feature}`);
  await shot(page, "work-phone-pull-request");
  await ship.getByLabel("Format").selectOption("zip");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    ship.getByRole("button", { name: "Download" }).click(),
  ]);
  assert.equal(download.suggestedFilename(), `${feature}.zip`);
  const saved = await readFile(await download.path());
  assert.equal(saved.subarray(0, 2).toString(), "PK", "a zip archive");
  await ship
    .getByRole("status")
    .getByText(/Downloaded/)
    .waitFor();
  assert.deepEqual(await axe(page), []);
  await shot(page, "work-phone-downloaded");
});

test("refusals beside their controls: a refused token is named, another project's secret is refused", async () => {
  const page = b.page;
  await page.goto("/#/features");
  const form = page.getByRole("form", { name: "Import a repository" });
  await form.getByLabel("Repository URL").fill(url);
  await form.getByLabel("Token secret").selectOption("WRONG_TOKEN");
  await form.getByLabel("Feature name").fill(uniqueName("refused").slice(0, 40));
  await form.getByRole("button", { name: "Import" }).click();
  const alert = form.getByRole("alert");
  await alert.getByText(/WRONG_TOKEN/).waitFor();
  assert.match(await alert.innerText(), /refused the credentials in secret WRONG_TOKEN \(401\)/);
  assert.doesNotMatch(await alert.innerText(), /not-the-token/);
  // Nothing of the form runs off a phone's screen: the long refusal wraps.
  for (const part of [alert, form.getByLabel("Repository URL"), form.getByLabel("Planned by")]) {
    const box = await part.boundingBox();
    assert.ok(box && box.x + box.width <= PHONE.width, `${await part.evaluate((e) => e.id || e.className)} fits`);
  }
  await shot(page, "work-phone-import-refused");
  // The same import with this project's secret went through (the first test); another project's is refused by name.
  const foreign = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({
      name: uniqueName("foreign").slice(0, 40),
      title: "Foreign secret",
      orchestrator: planner,
      repository: { url, tokenSecret: "OTHER_ONLY" },
    }),
  });
  assert.equal(foreign.status, 400, JSON.stringify(foreign.body));
  assert.match(foreign.body.error.message, /OTHER_ONLY/);

  // A push whose token the remote no longer takes is refused beside Push, naming the secret (the first test's push went through).
  const revoked = uniqueName("revoked").slice(0, 40);
  const setPushToken = (value) =>
    api("/api/projects/default/secrets/PUSH_TOKEN", { method: "PUT", body: JSON.stringify({ value }) });
  assert.equal((await setPushToken(remoteToken)).status, 200);
  const made = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({
      name: revoked,
      title: "Revoked token",
      orchestrator: planner,
      repository: { url, ref: "main", tokenSecret: "PUSH_TOKEN" },
    }),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal((await setPushToken("revoked-since")).status, 200);
  await page.goto(`/#/features/${revoked}`);
  const ship = page.locator("pantheon-feature-ship");
  await ship.getByRole("button", { name: "Push" }).click();
  const refusal = ship.getByRole("alert");
  await refusal.getByText(/PUSH_TOKEN/).waitFor();
  assert.match(await refusal.innerText(), /refused the credentials in secret PUSH_TOKEN \(401\)/);
  await refusal.scrollIntoViewIfNeeded();
  await shot(page, "work-phone-push-refused");
});

test("a chat-scope person sees the clone URL and Download but no Push or pull request, and the route refuses them", async () => {
  const ada = await invited("Ada Reader", "chat");
  const reader = await launchSignedIn({ viewport: PHONE, token: ada });
  try {
    await reader.page.goto(`/#/features/${feature}`);
    const ship = reader.page.locator("pantheon-feature-ship");
    await ship.getByRole("button", { name: "Download" }).waitFor();
    await ship.getByLabel("Clone URL", { exact: true }).waitFor();
    assert.equal(await ship.getByRole("button", { name: "Push" }).count(), 0);
    assert.equal(await ship.getByRole("button", { name: "Open pull request" }).count(), 0);
    assert.equal(await reader.page.getByRole("form", { name: "Import a repository" }).count(), 0);
    await shot(reader.page, "work-phone-reader");
    const push = await as(ada, `/api/features/${feature}/push`, { method: "POST", body: "{}" });
    assert.equal(push.status, 403);
    const pr = await as(ada, `/api/features/${feature}/pr`, { method: "POST", body: "{}" });
    assert.equal(pr.status, 403);
  } finally {
    await reader.close();
  }
});
