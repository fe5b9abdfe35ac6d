// A person watches a workflow run: its steps as a graph (the asks side by side, the join below the
// steps it waits for), each step's state and answer, the trace link of an ask, on a phone.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let b;
const chair = uniqueName("chair");
const judges = [uniqueName("judge"), uniqueName("judge")];

before(async () => {
  b = await launchSignedIn({ viewport: PHONE });
  for (const judge of judges) await createAgent(judge, { systemPrompt: `You are ${judge}.` });
  await createAgent(chair);
  const connected = await api(`/api/agents/${chair}/connections`, {
    method: "PUT",
    body: JSON.stringify({ connections: judges }),
  });
  assert.equal(connected.status, 200, JSON.stringify(connected.body));
});
after(async () => {
  await b?.close();
});

test("a workflow's graph shows each step's state and answer, the join under the asks it waited for", async () => {
  const workflow = {
    name: "review",
    steps: [
      { id: "first", kind: "ask", agent: judges[0], input: "Review {{input}}." },
      { id: "second", kind: "ask", agent: judges[1], input: "Review {{input}}." },
      { id: "both", kind: "join", policy: "all", after: ["first", "second"] },
    ],
  };
  const started = await api(`/api/agents/${chair}/workflows`, {
    method: "POST",
    body: JSON.stringify({ workflow, input: "the launch plan" }),
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const page = b.page;
  await page.goto(`/#/agents/${chair}/workflows/${started.body.id}`);
  const graph = page.locator("pantheon-workflow-graph");
  // Followed while it runs: the page reaches "completed" without a reload.
  await graph.getByTestId("workflow-status").filter({ hasText: "completed" }).waitFor({ timeout: 60_000 });
  const layers = graph.locator(".layer");
  assert.equal(await layers.count(), 2, "two layers: the asks, then the join");
  assert.deepEqual(
    await layers
      .nth(0)
      .locator("[data-step]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-step"))),
    ["first", "second"],
  );
  assert.deepEqual(
    await layers
      .nth(1)
      .locator("[data-step]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-step"))),
    ["both"],
  );
  const join = graph.getByRole("listitem", { name: "step both: done" });
  await join.getByText("after first, second").waitFor();
  const view = (await api(`/api/agents/${chair}/workflows/${started.body.id}`)).body;
  const firstAnswer = view.steps.find((s) => s.id === "first").output;
  assert.ok(firstAnswer.length > 0, "the first judge answered");
  await graph
    .getByRole("listitem", { name: "step first: done" })
    .getByText(firstAnswer.slice(0, 30), { exact: false })
    .waitFor();
  assert.match((await join.textContent()) ?? "", /first: [\s\S]*second: /);
  // An ask's trace is the delegation chain of the workflow.
  const trace = graph.getByRole("listitem", { name: "step first: done" }).getByRole("link", { name: "Trace" });
  assert.equal(
    await trace.getAttribute("href"),
    `#/conversations/${encodeURIComponent(`workflow:${started.body.id}`)}`,
  );
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "workflow-graph");
});

test("a workflow run that does not exist says so instead of a graph", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${chair}/workflows/no-such-run`);
  await page.locator("pantheon-workflow-graph").getByRole("alert").filter({ hasText: "does not exist" }).waitFor();
});
