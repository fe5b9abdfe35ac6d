// People, not tokens: an admin invites a person in the PWA (a one-time sign-in link and its QR code),
// the person's phone opens the link and is signed in as them, their comment and approval carry
// their name, and signing their device out from the admin's People view ends that phone's session.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launch, launchSignedIn, shoot, uniqueName } from "./harness.mjs";

const planner = uniqueName("planner");
const feature = uniqueName("people").slice(0, 40);
const person = uniqueName("ana");
const plan = [
  "# Shared notes",
  "",
  "A feature a person reviews from their phone.",
  "",
  "## Tasks",
  "",
  "1. Notes — write the notes file",
  "",
].join("\n");

let admin;
let phone;
let link;

before(async () => {
  await createAgent(planner, {
    runtime: { tools: ["feature.create", "plan.write", "plan.read", "tasks.sync", "status"] },
  });
  const created = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({ name: feature, title: "Shared notes", orchestrator: planner }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const written = await api(`/api/features/${feature}/plan`, {
    method: "PUT",
    body: JSON.stringify({ markdown: plan }),
  });
  assert.equal(written.status, 200, JSON.stringify(written.body));
  admin = await launchSignedIn({ viewport: PHONE });
});
after(async () => {
  await admin?.close();
  await phone?.close();
});

test("an admin invites a person from the People view: a one-time link and its QR code", async () => {
  const page = admin.page;
  await page.goto("/");
  await page.getByRole("link", { name: "People and devices" }).click();
  const people = page.locator("pantheon-people");
  await people.getByRole("heading", { name: "Invite a person" }).waitFor();
  await people.getByLabel("Name").fill(person);
  await people.getByLabel("May").selectOption("approve");
  await people.getByRole("button", { name: "Invite" }).click();
  await people.getByRole("heading", { name: `Sign-in link for ${person}` }).waitFor();
  link = (await people.getByTestId("invite-link").innerText()).trim();
  assert.match(link, /\/#\/join\/[A-Za-z0-9_-]{43}$/);
  assert.ok(link.startsWith(new URL(page.url()).origin), `the link opens this server: ${link}`);

  // The QR code is an SVG of dark modules on a quiet zone, sized as a QR version's grid (21 + 4k modules).
  const svg = people.locator(".qr svg");
  await svg.waitFor();
  const viewBox = await svg.getAttribute("viewBox");
  const side = Number(viewBox?.split(" ")[2]) - 8;
  assert.ok(side >= 21 && (side - 21) % 4 === 0, `a QR grid side, got ${side}`);
  const modules = ((await svg.locator("path").getAttribute("d")) ?? "").split("z").length - 1;
  assert.ok(
    modules > side * side * 0.3 && modules < side * side * 0.7,
    `about half the ${side * side} modules are dark, got ${modules}`,
  );
  const box = await svg.boundingBox();
  assert.ok(
    box && box.width >= 200 && Math.abs(box.width - box.height) < 1,
    `a square big enough to scan: ${JSON.stringify(box)}`,
  );
  assert.deepEqual(await axe(page), []);
  await shoot(page, "people-invite-link");

  // The invite waits in the list until it is used; its code is in no list.
  await people.getByRole("button", { name: "Done" }).click();
  await people.getByRole("heading", { name: "Invites waiting" }).waitFor();
  await people.getByText(person).first().waitFor();
  const invites = await api("/api/invites");
  assert.ok(invites.body.invites.some((i) => i.name === person && i.scope === "approve"));
  assert.ok(!JSON.stringify(invites.body).includes(link.split("/join/")[1]));
});

test("opening the link on another phone signs it in as the person; their comment and approval show their name", async () => {
  phone = await launch({ viewport: PHONE });
  const page = phone.page;
  await page.goto(link);
  await page.getByRole("link", { name: "Agents", exact: true }).waitFor();
  await page.waitForURL(/#\/agents$/);
  assert.equal(await page.evaluate(() => localStorage.getItem("pantheon.person")), person);
  assert.match(await page.evaluate(() => localStorage.getItem("pantheon.token")), /^pt_/);

  await page.goto(`/#/features/${feature}/plan`);
  const review = page.locator("pantheon-plan-review");
  await review.getByRole("heading", { name: "Plan v1" }).waitFor();
  await review.locator('li[data-line="7"] button.line').click();
  await review.getByLabel("Comment on line 7").fill("Which folder do the notes go in?");
  await review.getByRole("button", { name: "Comment", exact: true }).click();
  await review.locator('li[data-line="7"] article.comment').getByText("Which folder do the notes go in?").waitFor();
  await review.getByRole("button", { name: "Approve v1" }).click();
  // Their own comment is still open: approving asks first.
  await review.getByRole("alertdialog").getByRole("button", { name: "Approve anyway" }).click();
  await review.locator(".badge", { hasText: "approved" }).waitFor();
  await shoot(page, "people-person-approved");

  // The admin sees the person's name, not a token's.
  const adminPage = admin.page;
  await adminPage.goto(`/#/features/${feature}/plan`);
  const seen = adminPage.locator("pantheon-plan-review");
  const comment = seen.locator('li[data-line="7"] article.comment');
  await comment.waitFor();
  assert.match(await comment.locator(".who").innerText(), new RegExp(`^${person} ·`));
  await seen.getByText(`approved by ${person}`).waitFor();
  const stored = (await api(`/api/features/${feature}/plan`)).body;
  assert.equal(stored.approvedBy, person);
  assert.equal(stored.comments[0].author, person);
});

test("the admin sees whose device each token is and signs the phone out; the spent link does not sign in again", async () => {
  const page = admin.page;
  await page.goto("/#/people");
  const people = page.locator("pantheon-people");
  const device = people.getByRole("listitem", { name: `${person}'s device` });
  await device.waitFor();
  assert.match(await device.innerText(), /Chrome on Linux/);
  assert.match(await device.innerText(), /approve/);
  await device.getByRole("button", { name: `Sign out ${person}'s device` }).click();
  await device.waitFor({ state: "detached" });

  // The phone's token no longer works: its next load says so.
  const phonePage = phone.page;
  await phonePage.goto("/#/approvals");
  await phonePage
    .getByText(/not accepted any more/)
    .first()
    .waitFor();

  // The link was used once: opening it again (signed out) refuses, saying why, and offers a token sign-in.
  await phonePage.getByRole("button", { name: /Sign out/ }).click();
  await phonePage.goto(link);
  await phonePage
    .getByRole("alert")
    .getByText(/already used/)
    .waitFor();
  await phonePage.getByRole("link", { name: "Sign in with an API token instead" }).waitFor();
  assert.deepEqual(await axe(phonePage), []);
  await shoot(phonePage, "people-link-used");
});
