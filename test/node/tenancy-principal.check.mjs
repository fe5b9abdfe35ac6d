// An agent acts with its caller's rights, through `wrangler dev`: a chat token (made with the
// tokens API) sends a message that makes the offline model call memory.forget; the memory survives
// and the run waits for approval; an approve token may not approve it, an admin may, and then it is
// gone. The admin token's own message forgets at once (positive control); an agent set to refuse
// tells the model why. Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const { check, finish } = makeChecks();
const admin = makeCall(token);
const shown = (value) => JSON.stringify(value).slice(0, 600);

let server;
try {
  server = await startDevServer({ port: await freePort(), token });
  const url = server.url;
  const tokenOf = async (scope) =>
    (await admin(url, "/api/tokens", { method: "POST", body: JSON.stringify({ name: `principal ${scope}`, scope }) }))
      .body?.token;
  const chat = makeCall(await tokenOf("chat"));
  const approver = makeCall(await tokenOf("approve"));
  const remember = async (agent, text) =>
    (await admin(url, `/api/agents/${agent}/memories`, { method: "POST", body: JSON.stringify({ text }) })).body?.id;
  const memoryStatus = async (agent, id) => (await admin(url, `/api/agents/${agent}/memories/${id}`)).status;
  const say = (caller, agent, content) =>
    caller(url, `/api/agents/${agent}/messages`, { method: "POST", body: JSON.stringify({ content }) });
  const forget = (id) => `/tool memory.forget {"id":"${id}"}`;

  await admin(url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "keeper", systemPrompt: "You keep things." }),
  });
  const id = await remember("keeper", "The spare key is under the blue pot.");
  check(
    "the chat token's own route refuses to forget (403)",
    (await chat(url, `/api/agents/keeper/memories/${id}`, { method: "DELETE" })).status === 403,
  );

  const sent = await say(chat, "keeper", forget(id));
  check(
    "a chat token's message asking for memory.forget leaves the run waiting for approval",
    sent.body?.status === "waiting_approval",
    shown(sent),
  );
  check("the memory survives the chat token's message", (await memoryStatus("keeper", id)) === 200);
  const run = await admin(url, `/api/agents/keeper/runs/${sent.body?.runId}`);
  check(
    "the run records whom it acts for (the chat token) and why it waits",
    run.body?.run?.principal?.scope === "chat" &&
      run.body?.run?.principal?.name === "token:principal chat" &&
      run.body.trace.some(
        (s) =>
          s.name === "gate_decisions" &&
          s.data.decisions.some((d) => d.gate === "scope" && d.decision.pending === "approval"),
      ),
    shown(run.body?.run),
  );

  const lent = await approver(url, `/api/agents/keeper/runs/${sent.body?.runId}/approval`, {
    method: "POST",
    body: JSON.stringify({ decision: "approve" }),
  });
  check(
    "an approve token cannot approve an admin tool (403 naming the scope)",
    lent.status === 403 && /'admin' scope/.test(lent.body?.error?.message ?? ""),
    shown(lent),
  );
  check("the memory survives the refused approval", (await memoryStatus("keeper", id)) === 200);

  const approved = await admin(url, `/api/agents/keeper/runs/${sent.body?.runId}/approval`, {
    method: "POST",
    body: JSON.stringify({ decision: "approve" }),
  });
  check(
    "an admin approval runs the call and the run completes",
    approved.status === 200 && approved.body?.status === "completed",
    shown(approved),
  );
  check("after the admin's approval the memory is gone", (await memoryStatus("keeper", id)) === 404);

  const second = await remember("keeper", "The boat is called Wren.");
  const direct = await say(admin, "keeper", forget(second));
  check(
    "the admin token's own message forgets at once (positive control)",
    direct.body?.status === "completed" && (await memoryStatus("keeper", second)) === 404,
    shown(direct),
  );

  await admin(url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "strict", runtime: { beyondScope: "refuse" } }),
  });
  const kept = await remember("strict", "The gate code is 4711.");
  const refused = await say(chat, "strict", forget(kept));
  check(
    "an agent set to refuse tells the model the tool, the scope needed and the run's scope; the memory stays",
    refused.body?.status === "completed" &&
      /'memory\.forget' needs the 'admin' scope; this run acts for token:principal chat with the 'chat' scope/.test(
        refused.body?.reply?.content ?? "",
      ) &&
      (await memoryStatus("strict", kept)) === 200,
    shown(refused.body),
  );
} catch (error) {
  check("the principal check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
}

finish();
