// The protocol doors of test/node/doors.check.mjs, each driven by its protocol's own published client
// against `wrangler dev`: /v1 (openai), /mcp and /mcp/agents/:name (the MCP SDK, Streamable HTTP),
// /agui (@ag-ui/client's HttpAgent) and /a2a (@a2a-js/sdk's ClientFactory). Every check asserts the
// agent's answer and the run behind it, read back over /api.
import { SendMessageRequest, TaskState } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";

const iso = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** `/v1`: a completion and a streamed completion with the OpenAI SDK; each is a run whose reply is the answer. */
export async function openaiDoor({ url, token, check, shown, runOf }) {
  const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: token });
  const models = await openai.models.list();
  check(
    "/v1 (openai): models.list names the project's agents",
    models.data.some((m) => m.id === "scout"),
    shown(models.data),
  );

  const answer = await openai.chat.completions.create({
    model: "scout",
    messages: [{ role: "user", content: "What is the launch code word?" }],
  });
  const said = answer.choices[0]?.message?.content ?? "";
  const run = await runOf("scout", answer.id.replace(/^chatcmpl-/, ""));
  check(
    "/v1 (openai): a completion answers from the agent, and its id is a completed run whose reply is that answer",
    /pineapple/i.test(said) && run?.run.status === "completed" && run.reply === said,
    shown({ answer, run }),
  );

  const stream = await openai.chat.completions.create({
    model: "scout",
    stream: true,
    messages: [{ role: "user", content: "What is the launch code word?" }],
  });
  let streamed = "";
  let chunks = 0;
  let id = "";
  for await (const chunk of stream) {
    id = chunk.id;
    chunks += 1;
    streamed += chunk.choices[0]?.delta?.content ?? "";
  }
  const streamedRun = await runOf("scout", id.replace(/^chatcmpl-/, ""));
  check(
    "/v1 (openai): a streamed completion arrives in pieces that add up to the run's reply",
    chunks > 2 &&
      /pineapple/i.test(streamed) &&
      streamedRun?.run.status === "completed" &&
      streamedRun.reply === streamed,
    shown({ chunks, streamed, streamedRun }),
  );
}

async function mcpClient(url, token, path) {
  const client = new Client({ name: "doors-check", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** `/mcp` (the project) and `/mcp/agents/:name` (one agent) with the MCP SDK's client over Streamable HTTP. */
export async function mcpDoors({ url, token, check, shown, runOf }) {
  const project = await mcpClient(url, token, "/mcp");
  try {
    const tools = (await project.listTools()).tools.map((t) => t.name);
    const asked = await project.callTool({
      name: "ask_agent",
      arguments: { agent: "scout", message: "What is the launch code word?" },
    });
    const said = asked.content?.[0]?.text ?? "";
    const run = await runOf("scout", asked.structuredContent?.runId);
    check(
      "/mcp (MCP SDK): ask_agent answers from the agent; structuredContent names the completed run whose reply it is",
      tools.includes("ask_agent") &&
        !asked.isError &&
        /pineapple/i.test(said) &&
        run?.run.status === "completed" &&
        run.reply === said,
      shown({ tools, asked, run }),
    );
  } finally {
    await project.close();
  }

  const one = await mcpClient(url, token, "/mcp/agents/scout");
  try {
    const asked = await one.callTool({ name: "ask", arguments: { message: "What is the launch code word?" } });
    const said = asked.content?.[0]?.text ?? "";
    const run = await runOf("scout", asked.structuredContent?.runId);
    check(
      "/mcp/agents/scout (MCP SDK): ask answers from the agent, as a completed run whose reply it is",
      !asked.isError && /pineapple/i.test(said) && run?.run.status === "completed" && run.reply === said,
      shown({ asked, run }),
    );
    const tooled = await one.callTool({ name: "clock.now", arguments: {} });
    check(
      "/mcp/agents/scout (MCP SDK): the agent's own tool runs through its gates and answers its output",
      !tooled.isError && iso.test(tooled.content?.[0]?.text ?? ""),
      shown(tooled),
    );
  } finally {
    await one.close();
  }
}

/** One AG-UI turn with the client's own subscriber: the events applied, the interrupts, the failure. */
async function aguiTurn(agent, content, parameters) {
  if (content !== null) agent.addMessage({ id: crypto.randomUUID(), role: "user", content });
  const events = [];
  let interrupts = [];
  const result = await agent
    .runAgent(parameters, {
      onEvent: ({ event }) => void events.push(event),
      onRunFinishedEvent: (params) => {
        if (params.outcome === "interrupt") interrupts = params.interrupts;
      },
    })
    .catch((error) => ({ failure: error }));
  const of = (type) => events.filter((e) => e.type === type);
  return {
    events,
    of,
    text: of("TEXT_MESSAGE_CONTENT")
      .map((e) => e.delta)
      .join(""),
    interrupts,
    failure: result.failure ?? null,
  };
}

/** `/agui` with @ag-ui/client's HttpAgent: a turn, a tool call, an approval interrupt and its resume. */
export async function aguiDoor({ url, token, check, shown, runOf }) {
  const agentOf = (name) =>
    new HttpAgent({ url: `${url}/agui/agents/${name}`, headers: { authorization: `Bearer ${token}` } });

  const scout = agentOf("scout");
  const plain = await aguiTurn(scout, "What is the launch code word?");
  const runId = plain.of("STATE_SNAPSHOT").at(-1)?.snapshot?.runId;
  const run = await runOf("scout", runId);
  check(
    "/agui (HttpAgent): a turn streams the reply as text and finishes; the run it names is completed with that reply",
    !plain.failure &&
      plain.events[0]?.type === "RUN_STARTED" &&
      plain.events.at(-1)?.type === "RUN_FINISHED" &&
      /pineapple/i.test(plain.text) &&
      run?.run.status === "completed" &&
      run.reply === plain.text &&
      scout.messages.at(-1)?.content === plain.text,
    shown({ types: plain.events.map((e) => e.type), text: plain.text, run, failure: plain.failure?.message }),
  );

  const tooled = await aguiTurn(agentOf("scout"), "/tool clock.now {}");
  const start = tooled.of("TOOL_CALL_START")[0];
  const result = tooled.of("TOOL_CALL_RESULT")[0];
  const toolRun = await runOf("scout", tooled.of("STATE_SNAPSHOT").at(-1)?.snapshot?.runId);
  check(
    "/agui (HttpAgent): a tool call streams start and result, and the reply that used the result is the run's reply",
    !tooled.failure &&
      start?.toolCallName === "clock.now" &&
      result?.toolCallId === start.toolCallId &&
      iso.test(result.content) &&
      tooled.text.includes(JSON.parse(result.content).iso) &&
      toolRun?.reply === tooled.text,
    shown({ types: tooled.events.map((e) => e.type), text: tooled.text, toolRun, failure: tooled.failure?.message }),
  );

  const guarded = agentOf("guarded");
  const first = await aguiTurn(guarded, "/tool clock.now {}");
  const interrupt = first.interrupts[0];
  const waiting = await runOf("guarded", interrupt?.metadata?.runId);
  check(
    "/agui (HttpAgent): an approval-gated call ends the turn with a tool_approval interrupt; the run waits for approval",
    !first.failure &&
      interrupt?.reason === "tool_approval" &&
      interrupt.metadata?.tool === "clock.now" &&
      first.of("TOOL_CALL_RESULT").length === 0 &&
      waiting?.run.status === "waiting_approval",
    shown({
      types: first.events.map((e) => e.type),
      interrupts: first.interrupts,
      waiting: waiting?.run,
      failure: first.failure?.message,
    }),
  );
  const second = await aguiTurn(guarded, null, {
    resume: [{ interruptId: interrupt?.id, status: "resolved", payload: { approved: true } }],
  });
  const done = await runOf("guarded", interrupt?.metadata?.runId);
  check(
    "/agui (HttpAgent): resuming with approved runs the call and finishes the same run, its reply the streamed text",
    !second.failure &&
      second.of("TOOL_CALL_RESULT")[0]?.toolCallId === interrupt?.toolCallId &&
      done?.run.status === "completed" &&
      done.reply === second.text &&
      done.trace.find((s) => s.name === "approval")?.data?.approved === true,
    shown({ types: second.events.map((e) => e.type), text: second.text, done, failure: second.failure?.message }),
  );
}

const a2aText = (parts) =>
  (parts ?? []).map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("");
const userMessage = (text, extra = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
  });

/** `/a2a` with @a2a-js/sdk's ClientFactory (JSON-RPC): the card, send, get, stream and an approval. */
export async function a2aDoor({ url, token, check, shown, runOf }) {
  const fetchImpl = (input, init) => {
    const request = new Request(input, init);
    request.headers.set("authorization", `Bearer ${token}`);
    return fetch(request);
  };
  const clientOf = (agent) =>
    new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }).createFromUrl(`${url}/a2a/agents/${agent}/.well-known/agent-card.json`, "");

  const client = await clientOf("scout");
  const card = await client.getAgentCard();
  check(
    "/a2a (ClientFactory): the card names the agent, its tools as skills, and its JSON-RPC endpoint on this server",
    card.name === "scout" &&
      card.skills.some((s) => s.id === "clock.now") &&
      card.supportedInterfaces.some((i) => i.url === `${url}/a2a/agents/scout`),
    shown(card),
  );

  const task = await client.sendMessage(userMessage("What is the launch code word?"));
  const reply = a2aText(task.artifacts?.[0]?.parts);
  const run = await runOf("scout", task.id);
  check(
    "/a2a (ClientFactory): send answers a completed task whose artifact is the reply of the run of the same id",
    task.status?.state === TaskState.TASK_STATE_COMPLETED &&
      /pineapple/i.test(reply) &&
      run?.run.status === "completed" &&
      run.reply === reply,
    shown({ task, run }),
  );
  const read = await client.getTask({ id: task.id, tenant: "", historyLength: undefined });
  check(
    "/a2a (ClientFactory): get reads the task back, completed, with the same reply",
    read.status?.state === TaskState.TASK_STATE_COMPLETED && a2aText(read.artifacts?.[0]?.parts) === reply,
    shown(read),
  );

  const events = [];
  for await (const event of client.sendMessageStream(userMessage("/tool clock.now {}"))) events.push(event);
  const taskId = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : "";
  const updates = events.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value] : []));
  const calling = updates.find((u) =>
    u.status?.message?.parts.some(
      (p) => p.content?.$case === "data" && p.content.value?.toolCall?.name === "clock.now",
    ),
  );
  const artifact = events.find((e) => e.payload?.$case === "artifactUpdate")?.payload.value.artifact;
  const streamedRun = await runOf("scout", taskId);
  check(
    "/a2a (ClientFactory): a streamed message shows the task, the tool call while working, the reply artifact and the end",
    calling?.status?.state === TaskState.TASK_STATE_WORKING &&
      updates.at(-1)?.status?.state === TaskState.TASK_STATE_COMPLETED &&
      iso.test(a2aText(artifact?.parts)) &&
      streamedRun?.run.status === "completed" &&
      streamedRun.reply === a2aText(artifact?.parts),
    shown({ kinds: events.map((e) => e.payload?.$case), streamedRun }),
  );

  const guarded = await clientOf("guarded");
  const asked = await guarded.sendMessage(userMessage("/tool clock.now {}"));
  const waiting = await runOf("guarded", asked.id);
  check(
    "/a2a (ClientFactory): an approval-gated call leaves the task input-required, naming the tool; the run waits",
    asked.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
      a2aText(asked.status?.message?.parts).includes("clock.now") &&
      waiting?.run.status === "waiting_approval",
    shown({ asked, waiting: waiting?.run }),
  );
  const approved = await guarded.sendMessage(
    SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        taskId: asked.id,
        parts: [{ data: { decision: "approve" } }],
      },
    }),
  );
  const done = await runOf("guarded", asked.id);
  check(
    "/a2a (ClientFactory): answering approve completes the same task, the call ran, and the run records the approval",
    approved.id === asked.id &&
      approved.status?.state === TaskState.TASK_STATE_COMPLETED &&
      iso.test(a2aText(approved.artifacts?.[0]?.parts)) &&
      done?.run.status === "completed" &&
      done.trace.find((s) => s.name === "approval")?.data?.approved === true,
    shown({ approved, done: done?.run }),
  );
}

/** The names the docs' client snippets use (docs/protocols.md), handed to them when they run as written. */
export const snippetScope = {
  OpenAI,
  Client,
  StreamableHTTPClientTransport,
  HttpAgent,
  ClientFactory,
  JsonRpcTransportFactory,
  DefaultAgentCardResolver,
  SendMessageRequest,
};

/**
 * Another tenant at every door: project b's admin token names project a's agent (with a's project
 * or its own). Each door refuses (401: the token is not a's; 404: b has no such agent), and a's
 * agent runs nothing. The owner's own use of the same doors is the rest of this check.
 */
export async function tenantDoors({ url, api, check, shown }) {
  const made = await api("/api/projects", { method: "POST", body: JSON.stringify({ slug: "rival" }) });
  const rival = (
    await api("/api/tokens", {
      method: "POST",
      headers: { "x-pantheon-project": "rival" },
      body: JSON.stringify({ name: "rival admin", scope: "admin" }),
    })
  ).body?.token;
  const runsBefore = (await api("/api/agents/scout/runs")).body?.runs?.length;
  const as = (headers = {}) => ({ authorization: `Bearer ${rival}`, "content-type": "application/json", ...headers });
  const ask = JSON.stringify({
    model: "scout",
    messages: [{ role: "user", content: "What is the launch code word?" }],
  });
  const aguiInput = JSON.stringify({
    threadId: "t",
    runId: "r",
    messages: [{ id: "m", role: "user", content: "What is the launch code word?" }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  const rpc = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: {
      message: {
        kind: "message",
        messageId: "m",
        role: "user",
        parts: [{ kind: "text", text: "What is the launch code word?" }],
      },
    },
  });
  const mcp = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask_agent", arguments: { agent: "scout", message: "What is the launch code word?" } },
  });
  const mcpHeaders = { accept: "application/json, text/event-stream" };
  const statuses = {};
  for (const [door, path, init] of [
    ["/v1", "/v1/chat/completions", { method: "POST", body: ask }],
    ["/mcp", "/mcp", { method: "POST", body: mcp, headers: mcpHeaders }],
    ["/mcp/agents", "/mcp/agents/scout", { method: "POST", body: mcp, headers: mcpHeaders }],
    ["/agui", "/agui/agents/scout", { method: "POST", body: aguiInput }],
    ["/a2a card", "/a2a/agents/scout/.well-known/agent-card.json", { method: "GET" }],
    ["/a2a", "/a2a/agents/scout", { method: "POST", body: rpc }],
  ]) {
    for (const project of ["default", "rival"]) {
      const res = await fetch(`${url}${path}`, {
        ...init,
        headers: as({ "x-pantheon-project": project, ...init.headers }),
      });
      const text = await res.text();
      // /mcp in its own project is b's server: asking it for a's agent is a tool error naming the agent.
      statuses[`${door} as ${project}`] =
        res.status === 200 && /not|no agent/i.test(text) && !/pineapple/i.test(text) ? "tool error" : res.status;
    }
  }
  const socket = await new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/agents/agent-do/default.scout?token=${rival}`);
    ws.addEventListener("open", () => (ws.close(), resolve("open")));
    ws.addEventListener("error", () => resolve("refused"));
  });
  const runsAfter = (await api("/api/agents/scout/runs")).body?.runs?.length;
  check(
    "another project's admin token is refused at every door for this project's agent (401 with this project, 404 or a tool error in its own), and the agent ran nothing",
    made.status === 201 &&
      typeof rival === "string" &&
      Object.entries(statuses).every(([k, s]) =>
        k.endsWith("as default") ? s === 401 : s === 404 || s === "tool error",
      ) &&
      socket === "refused" &&
      runsAfter === runsBefore,
    shown({ statuses, socket, runsBefore, runsAfter }),
  );
}
