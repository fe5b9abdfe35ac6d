// The gates through `wrangler dev`, with the offline model: an agent whose memory gate denies a word
// never stores a conversation summary holding it (a control agent without the gate does), and the
// refusal is in the trace; a tool call the gates refuse is named in its trace step with its
// arguments (a secret in them redacted, base64 too), the gate and the reason, while an allowed
// call's step carries no refusal. Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const toolSecret = `tool-secret-${randomBytes(8).toString("hex")}`;
const { check, finish } = makeChecks();
const admin = makeCall(token);
const shown = (value) => String(JSON.stringify(value)).slice(0, 600);
// The dev server may keep state between runs: every agent has a name of this run.
const tag = randomBytes(3).toString("hex");
const [control, fruitless, careful] = ["control", "fruitless", "careful"].map((n) => `${n}-${tag}`);

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token,
    vars: { PANTHEON_TOOL_SECRETS: "AIRTABLE_KEY", AIRTABLE_KEY: toolSecret },
  });
  const url = server.url;
  const say = (agent, content, session) =>
    admin(url, `/api/agents/${agent}/messages`, {
      method: "POST",
      body: JSON.stringify({ content, ...(session ? { session } : {}) }),
    });
  const create = (body) => admin(url, "/api/agents", { method: "POST", body: JSON.stringify(body) });
  const summaries = async (agent) =>
    (await admin(url, `/api/agents/${agent}/memories?kind=summary&limit=50`)).body?.memories ?? [];
  const converse = async (agent) => {
    const first = await say(agent, "My favourite fruit is pineapple and my project is called Heliotrope.");
    const runIds = [first.body?.runId];
    for (let i = 0; i < 4; i++)
      runIds.push((await say(agent, `Filler question number ${i}?`, first.body?.sessionId)).body?.runId);
    return runIds;
  };

  // The summary gate.
  const noFruit = { name: "no-fruit", kind: "deny-pattern", on: ["memory"], pattern: "pineapple" };
  check(
    "the agents are created",
    (await create({ name: control, runtime: { limits: { maxHistory: 4 } } })).status === 201 &&
      (await create({ name: fruitless, runtime: { limits: { maxHistory: 4 }, gates: [noFruit] } })).status === 201,
  );
  await converse(control);
  const controlSummaries = await summaries(control);
  check(
    "positive control: without the gate the folded summary holding the word is stored",
    controlSummaries.length === 1 && controlSummaries[0].text.includes("pineapple"),
    shown(controlSummaries),
  );
  const runIds = await converse(fruitless);
  const everything = await admin(url, `/api/agents/${fruitless}/memories?limit=200`);
  check(
    "with a memory gate denying the word, no memory (summary or other) holds it",
    everything.status === 200 && !JSON.stringify(everything.body).includes("pineapple"),
    shown(everything.body),
  );
  const traces = (await Promise.all(runIds.map((id) => admin(url, `/api/agents/${fruitless}/runs/${id}`)))).flatMap(
    (r) => r.body?.trace ?? [],
  );
  const folded = traces.find((s) => s.name === "gate_decisions" && s.data?.by === "summary-fold");
  check(
    "the refused summary is in the trace of the run that folded: its gate and reason",
    folded?.data?.decisions?.at(-1)?.gate === "no-fruit" && folded.data.decisions.at(-1).decision.allow === false,
    shown(folded),
  );

  // A refused call's arguments in the trace.
  check(
    "the careful agent is created",
    (
      await create({
        name: careful,
        runtime: {
          tools: ["clock.now", "memory.store"],
          gates: [{ name: "no-passwords", kind: "deny-pattern", pattern: "password" }],
        },
      })
    ).status === 201,
  );
  const allowed = await say(careful, '/tool memory.store {"text":"The user likes tea"}');
  const allowedRun = await admin(url, `/api/agents/${careful}/runs/${allowed.body?.runId}`);
  const allowedStep = allowedRun.body?.trace?.find(
    (s) => s.name === "gate_decisions" && s.data?.tool === "memory.store",
  );
  check(
    "positive control: an allowed call's gate step carries no refusal and its tool_call step its arguments",
    allowedStep &&
      allowedStep.data.refused === undefined &&
      allowedRun.body.trace.some((s) => s.name === "tool_call" && s.data.arguments?.text === "The user likes tea"),
    shown(allowedRun.body?.trace),
  );
  const leaky = `my password is hunter2 and the key is ${Buffer.from(toolSecret).toString("base64")}`;
  const refused = await say(careful, `/tool memory.store ${JSON.stringify({ text: leaky })}`);
  const refusedRun = await admin(url, `/api/agents/${careful}/runs/${refused.body?.runId}`);
  const refusedStep = refusedRun.body?.trace?.find((s) => s.name === "gate_decisions" && s.data?.refused);
  check(
    "the refused call's step names the tool, its arguments (the secret's base64 form redacted), the gate and the reason",
    refusedStep?.data?.refused?.tool === "memory.store" &&
      refusedStep.data.refused.gate === "no-passwords" &&
      /password/.test(refusedStep.data.refused.reason) &&
      refusedStep.data.refused.arguments?.text === "my password is hunter2 and the key is [redacted]",
    shown(refusedStep),
  );
  const b64 = Buffer.from(toolSecret).toString("base64");
  const holding = (refusedRun.body?.trace ?? [])
    .filter((s) => JSON.stringify(s).includes(b64) || JSON.stringify(s).includes(toolSecret))
    .map((s) => s.name);
  check("no gate step holds the secret in any form", !holding.includes("gate_decisions"), shown(holding));
} catch (error) {
  check("the gates check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
}

finish();
