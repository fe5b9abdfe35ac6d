// A person reads why each context source was or was not used for a message: a granted source of a
// connected owner is used, the owner's source that names another agent is refused with the owner's
// reason, and the agent's own memory that matched nothing says so.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
const owner = uniqueName("owner");
const friend = uniqueName("friend");
const other = uniqueName("other");
const json = (body) => ({ method: "PUT", body: JSON.stringify(body) });

before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
  for (const name of [friend, other])
    assert.equal(
      (await api(`/api/agents/${name}/script`, json({ name, description: "A reader", talents: [] }))).status,
      201,
    );
  const script = `(actor "${owner}" (description "Keeps the vault")
  (context (source "vault" :label "Vault") (source "plans" :label "Plans"))
  (connections "${friend}")
  (grants "vault" (grant "plans" :to ["${other}"])))`;
  const pushed = await api(`/api/agents/${owner}/script`, {
    method: "PUT",
    body: script,
    headers: { "content-type": "text/x-pantheon" },
  });
  assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
  for (const [source, text] of [
    ["vault", "The vault combination is 31-47-09."],
    ["plans", "The launch plan moves to the harbour at dawn."],
  ]) {
    assert.equal(
      (
        await api(`/api/agents/${owner}/sources/${source}/documents`, {
          method: "POST",
          body: JSON.stringify({ title: source, text }),
        })
      ).status,
      201,
    );
  }
  assert.equal(
    (
      await api(
        `/api/agents/${friend}/script`,
        json({
          name: friend,
          description: "A reader",
          talents: [],
          contextSources: [`${owner}/vault`, `${owner}/plans`],
        }),
      )
    ).status,
    200,
  );
});
after(async () => {
  await b?.close();
});

test("the context view says, for each source, whether it was used for this message and why not", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${friend}/context?q=${encodeURIComponent("What is the vault combination?")}`);
  const list = page.locator("pantheon-context-view").getByRole("list", { name: "Sources and why" });
  await list.waitFor();
  const line = (source) => list.locator(`li[data-source="${source}"]`);
  assert.match((await line(`${owner}/vault`).textContent()) ?? "", /Used: 1 of 1 matching item included/);
  assert.match((await line(`${owner}/plans`).textContent()) ?? "", /Refused: .*not named by the grant/);
  assert.match((await line("memory").textContent()) ?? "", /Not used: nothing in it matched this message/);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "context-sources");
});
