// `k` on GET /api/agents/:name/context through `wrangler dev` with plain fetch, as an evaluator or the
// PWA's context view asks it: an agent holding forty matching memories shows 12 by default, as many
// as k asks (30, past the old fixed 12), fewer under a small token budget, and a k outside 1–100 is a
// 400 that names k. Prints `N passed, N failed`.
//   node test/node/context-k.check.mjs
import { randomBytes } from "node:crypto";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const { check, finish } = makeChecks();
const admin = makeCall(token);
const agent = `recall-${randomBytes(3).toString("hex")}`;
const plants =
  "tulips roses basil mint tomatoes carrots leeks onions garlic peas beans kale chard lettuce radish beets squash melons peppers chilies sage thyme parsley dill fennel lavender dahlias irises lilies peonies asters ferns hostas heather clover poppies daisies violets pansies crocus".split(
    " ",
  );
const places = "fence shed pond gate wall hedge path oak well porch".split(" ");

let server;
try {
  server = await startDevServer({ port: await freePort(), token });
  const url = server.url;
  check(
    "the agent is created",
    (await admin(url, "/api/agents", { method: "POST", body: JSON.stringify({ name: agent }) })).status === 201,
  );
  const now = Date.now();
  const lines = plants.map((plant, i) =>
    JSON.stringify({
      kind: "episode",
      text: `${plant} by the ${places[i % 10]}, garden bed ${i}: the user planted ${plant}`,
      occurredAt: now - i * 86_400_000,
    }),
  );
  const imported = await admin(url, `/api/agents/${agent}/memories/import`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: lines.join("\n"),
  });
  check("forty memories are imported", imported.status === 200, JSON.stringify(imported.body)?.slice(0, 300));

  const q = encodeURIComponent("What did the user plant in the garden?");
  const included = (body) => (body?.items ?? []).filter((i) => i.included && i.source === "memory");
  const plain = await admin(url, `/api/agents/${agent}/context?q=${q}`);
  check(
    "without k the context includes 12 memories",
    plain.status === 200 && included(plain.body).length === 12,
    `${plain.status} ${included(plain.body).length}`,
  );
  const wide = await admin(url, `/api/agents/${agent}/context?q=${q}&k=30`);
  check(
    "k=30 includes 30 memories, and they are in the memory block the model sees",
    wide.status === 200 &&
      included(wide.body).length === 30 &&
      included(wide.body).every((i) => wide.body.messages.some((m) => m.content.includes(i.text))),
    `${wide.status} ${included(wide.body).length}`,
  );
  const tight = await admin(url, `/api/agents/${agent}/context?q=${q}&k=40&maxTokens=300`);
  check(
    "k stays within the token budget",
    tight.status === 200 &&
      tight.body.tokens.used <= tight.body.tokens.budget &&
      included(tight.body).length < 40 &&
      tight.body.items.some((i) => i.reason.code === "over_budget"),
    `${tight.status} ${JSON.stringify(tight.body?.tokens)}`,
  );
  for (const bad of ["0", "101", "2.5", "many"]) {
    const refused = await admin(url, `/api/agents/${agent}/context?q=${q}&k=${bad}`);
    check(
      `k=${bad} is a 400 naming k`,
      refused.status === 400 && /\bk\b/.test(JSON.stringify(refused.body)),
      `${refused.status} ${JSON.stringify(refused.body)?.slice(0, 300)}`,
    );
  }
} catch (error) {
  check("the k check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
}

finish();
