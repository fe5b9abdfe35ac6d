// OpenTelemetry export through a real local stack (wrangler dev): a project sets its OTLP endpoint
// and header as project secrets; a delegated, approval-gated run (main waits for a person's approval
// of `ask_helper`, then asks helper, which reads the clock) reaches a loopback OTLP/HTTP receiver as
// one trace: main's `invoke_agent` span with its `chat`, gate, `await_approval` and
// `execute_tool ask_helper` children, and helper's `invoke_agent` span under that tool span, with the
// GenAI attribute names of the official semantic conventions package. A receiver that fails is
// retried until it answers; the header value never appears in a span. Then the project's settings
// change while the agents run: the endpoint moved to a second receiver takes the next run, deleting it
// stops the export at once (a third receiver named after gets only the run made then), and a reply
// quoting the header is refused by name with its value in no trace or span. Prints `N passed, N failed` last.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_RESPONSE_MODEL,
} from "@opentelemetry/semantic-conventions/incubating";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, until } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-otel-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const headerValue = `team ${randomBytes(6).toString("hex")}`;

/** A loopback OTLP/HTTP receiver: records each export; answers 503 to the first `failFirst` ones. */
function startReceiver(failFirst) {
  const received = [];
  let failures = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (failures < failFirst) {
        failures++;
        res.writeHead(503).end();
        return;
      }
      received.push({ path: req.url, headers: req.headers, body: JSON.parse(body) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        received,
        failures: () => failures,
        close: () => server.close(),
      }),
    ),
  );
}

const attr = (span, key) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return (
    value?.stringValue ??
    (value?.intValue !== undefined
      ? Number(value.intValue)
      : (value?.boolValue ?? value?.arrayValue?.values.map((v) => v.stringValue)))
  );
};

let server;
let second;
let thirdReceiver;
const receiver = await startReceiver(1);
try {
  server = await startDevServer({
    // OTEL_CHECK_PORT pins the port (helpers sharing a machine each keep to their own range).
    port: Number(process.env.OTEL_CHECK_PORT) || (await freePort()),
    token,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const put = (name, value) =>
    fetch(`${server.url}/api/projects/default/secrets/${name}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ value }),
    });
  check(
    "the project sets its OTLP endpoint and header as secrets",
    (await put("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)).status === 200 &&
      (await put("OTEL_EXPORTER_OTLP_HEADERS", `x-otlp-team=${encodeURIComponent(headerValue)}`)).status === 200,
  );

  await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "helper", description: "Reads the clock", runtime: { tools: ["clock.now"] } }),
  });
  const made = await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "main", description: "Asks helper", runtime: { approvalRequired: ["ask_helper"] } }),
  });
  const connected = await call(server.url, "/api/agents/main/connections", {
    method: "PUT",
    body: JSON.stringify({ connections: ["helper"] }),
  });
  check(
    "main is made, connected to helper, its question to helper needing an approval",
    made.status === 201 && connected.status === 200,
    JSON.stringify([made.body, connected.body]).slice(0, 400),
  );
  const asked = await call(server.url, "/api/agents/main/messages", {
    method: "POST",
    body: JSON.stringify({ content: "/ask helper /tool clock.now {}" }),
  });
  const runId = asked.body?.runId;
  check(
    "main's question to helper waits for a person's approval",
    asked.body?.status === "waiting_approval",
    JSON.stringify(asked.body).slice(0, 300),
  );
  const decided = await call(server.url, `/api/agents/main/runs/${runId}/approval`, {
    method: "POST",
    body: JSON.stringify({ decision: "approve" }),
  });
  check(
    "the approval is accepted",
    decided.status === 200 || decided.status === 202,
    JSON.stringify(decided.body).slice(0, 300),
  );
  await until(
    "main's run to complete",
    async () => (await call(server.url, `/api/agents/main/runs/${runId}`)).body?.run?.status === "completed",
    { ms: 60_000 },
  );

  // The first export gets a 503: it is kept and sent again (backoff), so both runs arrive.
  const spans = await until(
    "both runs at the receiver",
    async () => {
      const all = receiver.received.flatMap((r) =>
        r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
      );
      const roots = all.filter((s) => attr(s, ATTR_GEN_AI_OPERATION_NAME) === "invoke_agent");
      return roots.some((s) => attr(s, ATTR_GEN_AI_AGENT_NAME) === "main") &&
        roots.some((s) => attr(s, ATTR_GEN_AI_AGENT_NAME) === "helper")
        ? all
        : null;
    },
    { ms: 90_000 },
  );
  check(
    "a receiver that failed (503) was retried until it took the spans",
    receiver.failures() === 1 && receiver.received.length >= 1,
    `failures ${receiver.failures()}, exports ${receiver.received.length}`,
  );
  const first = receiver.received[0];
  check(
    "exports go to <endpoint>/v1/traces as OTLP JSON with the project's header",
    first.path === "/v1/traces" &&
      first.headers["x-otlp-team"] === headerValue &&
      first.headers["content-type"] === "application/json",
    JSON.stringify({ path: first.path, headers: first.headers }),
  );

  const mainRoot = spans.find((s) => attr(s, ATTR_GEN_AI_AGENT_NAME) === "main" && s.name === "invoke_agent main");
  const helperRoot = spans.find((s) => s.name === "invoke_agent helper");
  const mainChildren = spans.filter((s) => s.parentSpanId === mainRoot?.spanId).map((s) => s.name);
  check(
    "main's run is one invoke_agent span with chat, gate, await_approval and execute_tool ask_helper children",
    !!mainRoot &&
      !mainRoot.parentSpanId &&
      mainChildren.includes("chat offline") &&
      mainChildren.includes("await_approval ask_helper") &&
      mainChildren.includes("execute_tool ask_helper") &&
      mainChildren.some((n) => n.startsWith("gate ")),
    JSON.stringify(mainChildren),
  );
  const askSpan = spans.find((s) => s.name === "execute_tool ask_helper");
  check(
    "helper's run is in the same trace, a child of main's execute_tool ask_helper span",
    !!helperRoot &&
      helperRoot.traceId === mainRoot?.traceId &&
      helperRoot.parentSpanId === askSpan?.spanId &&
      helperRoot.kind === 2,
    JSON.stringify({
      helper: helperRoot && { traceId: helperRoot.traceId, parent: helperRoot.parentSpanId },
      main: mainRoot?.traceId,
      ask: askSpan?.spanId,
    }),
  );
  const helperChildren = spans.filter((s) => s.parentSpanId === helperRoot?.spanId);
  const clock = helperChildren.find((s) => s.name === "execute_tool clock.now");
  check(
    "helper's clock.now call is its own execute_tool span with the tool's name",
    !!clock && attr(clock, ATTR_GEN_AI_TOOL_NAME) === "clock.now" && clock.status.code === 1,
    JSON.stringify(helperChildren.map((s) => s.name)),
  );
  const chat = spans.find((s) => s.parentSpanId === mainRoot?.spanId && s.name === "chat offline");
  check(
    "a chat span carries the model and its token counts (gen_ai.*)",
    attr(chat, ATTR_GEN_AI_RESPONSE_MODEL) === "offline" &&
      attr(chat, ATTR_GEN_AI_USAGE_INPUT_TOKENS) > 0 &&
      chat.kind === 3,
    JSON.stringify(chat?.attributes),
  );
  const approval = spans.find((s) => s.name === "await_approval ask_helper");
  check(
    "the approval wait span ends when the person decided, and says so",
    attr(approval, "pantheon.approval.approved") === true &&
      Number(approval.endTimeUnixNano) >= Number(approval.startTimeUnixNano),
    JSON.stringify(approval),
  );
  check(
    "spans are well formed: 32-hex trace ids, 16-hex span ids, end after start",
    spans.every(
      (s) =>
        /^[0-9a-f]{32}$/.test(s.traceId) &&
        /^[0-9a-f]{16}$/.test(s.spanId) &&
        BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano),
    ),
    "",
  );
  check(
    "the project's header value is in no span",
    !JSON.stringify(receiver.received.map((r) => r.body)).includes(headerValue.split(" ")[1]),
    "",
  );

  // Settings reach the running agents: the endpoint moved, then deleted, while helper (warm) keeps answering.
  const exportsOf = (r) => r.received.length;
  const helperRuns = (r) =>
    r.received.flatMap((x) =>
      x.body.resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans.filter((sp) => sp.name === "invoke_agent helper")),
      ),
    ).length;
  const ask = (content) =>
    call(server.url, "/api/agents/helper/messages", { method: "POST", body: JSON.stringify({ content }) });
  const moved = await startReceiver(0);
  second = moved;
  const before = exportsOf(receiver);
  check(
    "the endpoint is moved to a second receiver",
    (await put("OTEL_EXPORTER_OTLP_ENDPOINT", moved.url)).status === 200,
  );
  const secret = headerValue.split(" ")[1];
  const leaked = await ask(`what is ${secret}?`);
  await until("helper's run at the second receiver", async () => helperRuns(moved) >= 1, { ms: 60_000 });
  check(
    "the next run's spans go to the new receiver, none to the old one",
    exportsOf(receiver) === before,
    `old ${before} → ${exportsOf(receiver)}`,
  );
  const leakedRun = await call(server.url, `/api/agents/helper/runs/${leaked.body?.runId}`);
  const trace = JSON.stringify(leakedRun.body?.trace ?? leakedRun.body?.run?.trace ?? []);
  check(
    "a reply quoting the OTLP header is refused naming it, and its value is in neither the trace nor any span",
    trace.includes("OTEL_EXPORTER_OTLP_HEADERS") &&
      !trace.includes(secret) &&
      !JSON.stringify(moved.received.map((r) => r.body)).includes(secret),
    trace.slice(0, 600),
  );
  const deleted = await fetch(`${server.url}/api/projects/default/secrets/OTEL_EXPORTER_OTLP_ENDPOINT`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${token}` },
  });
  const afterMove = exportsOf(moved);
  await ask("/tool clock.now {}");
  // The control: a third receiver named after the deletion gets the next run; exports go one at a time,
  // so the run made while none was set would have reached the second receiver before it.
  const third = await startReceiver(0);
  thirdReceiver = third;
  await put("OTEL_EXPORTER_OTLP_ENDPOINT", third.url);
  await ask("/tool clock.now {}");
  await until("helper's run at the third receiver", async () => helperRuns(third) >= 1, { ms: 60_000 });
  check(
    "DELETE of the endpoint (204) stops the export at once: the run made then reaches no receiver",
    deleted.status === 204 && exportsOf(moved) === afterMove && helperRuns(third) === 1,
    `second ${afterMove} → ${exportsOf(moved)}, third ${helperRuns(third)}`,
  );
} catch (error) {
  check("the OpenTelemetry check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  receiver.close();
  second?.close();
  thirdReceiver?.close();
  await rm(persistTo, { recursive: true, force: true });
}

finish();
