// Agents made by Pantheon's doors open in the PWA: examples/agents.json imported through the API (as
// `pantheon project import` does) and a snapshot of an agent with a script restored under a new name
// (as `pantheon agents restore --name` does). Each agent's page loads — its name, description, role and
// goals, not "Loading…" — shows every field core/agents/definition.ts says the page shows (and none it
// says a person finds elsewhere), and a message sent from its chat gets an answer.
// The old data (goals stored as the string "[]") cannot be written here: no test-only path writes a
// raw registry row, so the page's failure on it is not reproduced.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { BASE_URL, PHONE, TOKEN, api, axe, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";
import "../node/ts-resolve.mjs";

const { declaredFields, fieldValue } = await import("../../core/agents/definition.ts");

const project = uniqueName("doors");
const headers = { "x-pantheon-project": project };

const keeper = `; keeps the shelves
(actor "keeper"
  (role "librarian")
  (description "Keeps the shelves in order.")
  (model :provider "offline" :name "offline")
  (goals "Shelve every returned book" "Mend torn covers")
  (tools "clock.now")
  (talent "shelving"
    (behavior "tidy" :persistent
      (every "1h")
      (goal (input) "Tidy the shelves")
      (plan (input ctx) (think)))))`;

/** The texts a field's value shows as: a string itself, each item of a list, a script by its actor's name. */
function textsOf(path, value) {
  if (value === undefined || value === null || value === "") return [];
  if (Array.isArray(value)) return value.map(String);
  if (path === "script") return [`(actor "${value.name}"`];
  return typeof value === "string" ? [value] : [JSON.stringify(value)];
}

const shown = declaredFields().filter(([, d]) => d.views.pwaPage === "shows");
const elsewhere = declaredFields().filter(([, d]) => d.views.pwaPage !== "shows");
/** Every declared path the page was seen to show, over all the agents opened. */
const seen = new Set();

let b;
before(async () => {
  const made = await api("/api/projects", { method: "POST", body: JSON.stringify({ slug: project }) });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const file = await readFile(new URL("../../examples/agents.json", import.meta.url), "utf8");
  const imported = await api(`/api/projects/${project}/import`, { method: "POST", body: file });
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  assert.deepEqual(imported.body.agents.created.sort(), ["airtable", "github", "main"]);

  const put = await fetch(`${BASE_URL}/api/agents/keeper/script`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/x-pantheon", ...headers },
    body: keeper,
  });
  assert.equal(put.status, 201, await put.text());
  const snapshot = await fetch(`${BASE_URL}/api/agents/keeper/snapshot`, {
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
  });
  assert.equal(snapshot.status, 200);
  const [headerLine, ...rest] = (await snapshot.text()).split("\n");
  // The header alone makes the agent (201); the rest brings its history (200), as the CLI sends them.
  for (const [body, want] of [
    [headerLine, 201],
    [rest.join("\n"), 200],
  ]) {
    if (!body.trim()) continue;
    const restored = await fetch(`${BASE_URL}/api/agents/shelver/snapshot/restore`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson", ...headers },
      body: `${body}\n`,
    });
    assert.equal(restored.status, want, await restored.text());
  }

  b = await launchSignedIn({ viewport: PHONE, reload: false });
  await b.page.evaluate((p) => localStorage.setItem("pantheon.project", p), project);
  await b.page.reload();
});
after(async () => {
  await b?.close();
});

/** Opens the agent's page and waits until every part of it has loaded. */
async function open(agent) {
  const page = b.page;
  await page.goto(`/#/agents/${agent}`);
  const detail = page.locator("pantheon-actor-detail");
  await detail.getByRole("heading", { name: agent, exact: true }).waitFor();
  await detail.getByRole("heading", { name: "Goals" }).waitFor();
  await detail.getByText("Loading…").first().waitFor({ state: "detached" });
  return detail;
}

/** Each field the declaration says the page shows, with the agent's value, is on it; the rest are not. */
async function checkDeclaredFields(detail, profile) {
  for (const [path] of shown) {
    const texts = textsOf(path, fieldValue(profile, path));
    if (!texts.length) continue;
    const place = detail.locator(`[data-field~="${path}"]`);
    assert.equal(await place.count(), 1, `${profile.name}: the page shows ${path}`);
    const text = (await place.textContent()) ?? "";
    for (const t of texts) assert.ok(text.includes(t), `${profile.name}: ${path} shows '${t}' (it shows '${text}')`);
    seen.add(path);
  }
  // The control: a field the declaration sends a person elsewhere for is not marked on the page.
  for (const [path] of elsewhere)
    assert.equal(await detail.locator(`[data-field~="${path}"]`).count(), 0, `${path} is declared elsewhere`);
}

async function answers(agent) {
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByLabel(`Message ${agent}`).fill("are you there?");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator("pantheon-chat .msg.user", { hasText: "are you there?" }).waitFor();
  const reply = page.locator('pantheon-chat .msg.assistant[aria-busy="false"]').last();
  await reply.waitFor();
  const text = ((await reply.textContent()) ?? "").trim();
  assert.ok(text.length > 0, `${agent} answered`);
  assert.doesNotMatch(text, /could not be compiled|is not a function/);
}

test("each agent imported from examples/agents.json opens loaded, with its declared fields, and answers from its chat", async () => {
  for (const agent of ["main", "airtable", "github"]) {
    const { status, body: profile } = await api(`/api/agents/${agent}`, { headers });
    assert.equal(status, 200);
    const detail = await open(agent);
    await detail.getByText(profile.description, { exact: true }).waitFor();
    await detail.getByText("No standing goals.").waitFor();
    await checkDeclaredFields(detail, profile);
    if (agent === "main") {
      assert.deepEqual(await axe(b.page), []);
      await shootBoth(b.page, "agent-imported");
    }
    await answers(agent);
  }
});

test("an agent restored from a snapshot under a new name opens with its role and goals, and answers", async () => {
  const { status, body: profile } = await api("/api/agents/shelver", { headers });
  assert.equal(status, 200);
  assert.deepEqual(profile.goals, ["Shelve every returned book", "Mend torn covers"]);
  const detail = await open("shelver");
  await detail.getByText("Role: librarian").waitFor();
  const goals = detail.getByRole("list", { name: "Standing goals of shelver" });
  assert.deepEqual(
    (await goals.locator("li").allTextContents()).map((t) => t.trim()),
    ["Shelve every returned book", "Mend torn covers"],
  );
  await checkDeclaredFields(detail, profile);
  assert.deepEqual(await axe(b.page), []);
  await shootBoth(b.page, "agent-restored");
  await answers("shelver");
});

test("between them the agents showed every field the declaration says the page shows", () => {
  assert.deepEqual([...seen].sort(), shown.map(([path]) => path).sort());
  assert.deepEqual(b.errors.map(String), []);
});
