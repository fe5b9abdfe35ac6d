// Every agent's A2A door (/a2a/agents/:name) driven by the A2A SDK's own client (ClientFactory with
// the JSON-RPC transport, and the v0.3 transport), through the real worker (SELF).
import { SendMessageRequest, TaskState, type AgentCard, type StreamResponse, type Task } from "@a2a-js/sdk";
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent, uniqueName } from "../api/client";

const base = "https://pantheon.test";

/** A fetch into the worker carrying a token (and a project), as an A2A client's `fetchImpl`. */
function fetchAs(token: string | null, project?: string): typeof fetch {
  return (input, init) => {
    const request = new Request(input instanceof Request ? input : String(input), init);
    if (token) request.headers.set("authorization", `Bearer ${token}`);
    if (project) request.headers.set("x-pantheon-project", project);
    return SELF.fetch(request);
  };
}

async function clientOf(agent: string, token: string | null = adminToken, project?: string): Promise<Client> {
  const fetchImpl = fetchAs(token, project);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  // The card lives under the agent's path: the full URL, with an empty path for the resolver.
  return factory.createFromUrl(`${base}/a2a/agents/${agent}/.well-known/agent-card.json`, "");
}

const userMessage = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
  });

const answerMessage = (taskId: string, data: Record<string, unknown>) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId, parts: [{ data }] },
  });

const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("");

async function tokenOf(scope: "chat" | "approve" | "admin", project?: string) {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name: `a2a ${scope}`, scope },
    headers: project ? { "x-pantheon-project": project } : {},
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

/** An agent whose `clock.now` waits for a person's approval. */
const gatedAgent = () => createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });

async function send(client: Client, text: string): Promise<Task> {
  const result = await client.sendMessage(userMessage(text));
  expect("id" in result && "status" in result, "a task, not a bare message").toBe(true);
  return result as Task;
}

describe("the A2A agent card", () => {
  it("names the agent, describes it, lists its tools and connections as skills, and asks for a bearer token", async () => {
    const helper = await createAgent({ description: "Keeps the CRM" });
    const agent = await createAgent({ description: "Knows the launch code word", runtime: { tools: ["clock.now"] } });
    expect(
      (await api(`/api/agents/${agent.name}/connections`, { method: "PUT", json: { connections: [helper.name] } }))
        .status,
    ).toBe(200);

    const client = await clientOf(agent.name);
    const card: AgentCard = await client.getAgentCard();
    expect(card.name).toBe(agent.name);
    expect(card.description).toBe("Knows the launch code word");
    const tools = (
      (await (await api(`/api/agents/${agent.name}/tools`)).json()) as { tools: { name: string }[] }
    ).tools.map((t) => t.name);
    expect(card.skills.map((s) => s.id).sort()).toEqual(tools.sort());
    expect(tools).toEqual(expect.arrayContaining([`ask_${helper.name}`, "clock.now"]));
    expect(card.skills.find((s) => s.id === `ask_${helper.name}`)?.description).toContain("Keeps the CRM");
    expect(card.capabilities?.streaming).toBe(true);
    const scheme = card.securitySchemes.bearer?.scheme;
    expect(scheme?.$case).toBe("httpAuthSecurityScheme");
    expect(scheme?.$case === "httpAuthSecurityScheme" && scheme.value.scheme).toBe("Bearer");
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`)).toEqual([
      `JSONRPC 1.0 ${base}/a2a/agents/${agent.name}`,
      `JSONRPC 0.3 ${base}/a2a/agents/${agent.name}`,
    ]);
  });

  it("is not shown without a token, to another project's token, or for an agent that does not exist", async () => {
    const agent = await createAgent();
    const cardPath = `/a2a/agents/${agent.name}/.well-known/agent-card.json`;
    expect((await api(cardPath, { token: null })).status).toBe(401);
    const project = uniqueName("other");
    const foreign = await tokenOf("admin", project);
    expect((await api(cardPath, { token: foreign })).status).toBe(401);
    expect((await api(cardPath, { token: foreign, headers: { "x-pantheon-project": project } })).status).toBe(404);
    const missing = await api(`/a2a/agents/${uniqueName("ghost")}/.well-known/agent-card.json`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});

describe("A2A tasks are the agent's runs", () => {
  it("message/send answers a completed task with the reply as its artifact, and the task is the run", async () => {
    const agent = await createAgent();
    const client = await clientOf(agent.name);
    const task = await send(client, "What is the launch code word?");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts).toLowerCase()).toContain("pineapple");
    expect(task.history.map((m) => textOf(m.parts))).toContain("What is the launch code word?");

    const run = (await (await api(`/api/agents/${agent.name}/runs/${task.id}`)).json()) as {
      run: { status: string; sessionId: string };
    };
    expect(run.run.status).toBe("completed");
    // The context is a session of the agent, kept for the next message of the same context.
    const again = await client.sendMessage(userMessage("And again?", { contextId: task.contextId }));
    const second = (await (await api(`/api/agents/${agent.name}/runs/${(again as Task).id}`)).json()) as {
      run: { sessionId: string };
    };
    expect(second.run.sessionId).toBe(run.run.sessionId);
  });

  it("message/stream streams the task, the tool call while it works, the reply and the end; tasks/get reads it back", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const client = await clientOf(agent.name);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userMessage("/tool clock.now {}"))) events.push(event);

    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    const updates = events.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value] : []));
    const toolCall = updates.find((u) =>
      u.status?.message?.parts.some(
        (p) =>
          p.content?.$case === "data" &&
          (p.content.value as { toolCall?: { name: string } }).toolCall?.name === "clock.now",
      ),
    );
    expect(toolCall?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const artifact = events.find((e) => e.payload?.$case === "artifactUpdate");
    expect(artifact).toBeDefined();
    expect(updates.at(-1)?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const taskId = (events[0]!.payload as { value: Task }).value.id;
    const read = await client.getTask({ id: taskId, tenant: "", historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.history[0] && textOf(read.history[0].parts)).toBe("/tool clock.now {}");
    expect(textOf(read.artifacts[0]?.parts)).toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it("a stream the client stops reading does not hold the run back: the run finishes, and the rest of the stream is still there", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const stream = (await clientOf(agent.name)).sendMessageStream(userMessage("/tool clock.now {}"));
    const first = await stream.next();
    const taskId =
      (first.value as StreamResponse).payload?.$case === "task"
        ? ((first.value as StreamResponse).payload!.value as Task).id
        : "";
    // The client reads nothing more while the agent works: the run is the agent's, not the stream's.
    let status = "";
    for (let i = 0; i < 200 && status !== "completed"; i++) {
      // The task is announced (submitted) before the agent has written its run: a 404 at first is fine.
      status =
        ((await (await api(`/api/agents/${agent.name}/runs/${taskId}`)).json()) as { run?: { status: string } }).run
          ?.status ?? "";
      if (status !== "completed") await new Promise((r) => setTimeout(r, 10));
    }
    expect(status).toBe("completed");
    const rest: StreamResponse[] = [];
    for await (const event of { [Symbol.asyncIterator]: () => stream }) rest.push(event);
    expect(
      rest.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : [])).at(-1),
    ).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("an approval-gated tool call makes the task input-required; a chat token may not answer it, an approve token may", async () => {
    const agent = await gatedAgent();
    const chat = await tokenOf("chat");
    const approver = await tokenOf("approve");
    const task = await send(await clientOf(agent.name, chat), "/tool clock.now {}");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(task.status?.message?.parts)).toContain("clock.now");

    await expect(
      (await clientOf(agent.name, chat)).sendMessage(answerMessage(task.id, { decision: "approve" })),
    ).rejects.toThrow(/approve' scope/);
    expect(
      ((await (await api(`/api/agents/${agent.name}/runs/${task.id}`)).json()) as { run: { status: string } }).run
        .status,
    ).toBe("waiting_approval");

    const done = (await (
      await clientOf(agent.name, approver)
    ).sendMessage(answerMessage(task.id, { decision: "approve" }))) as Task;
    expect(done.id).toBe(task.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const trace = (await (await api(`/api/agents/${agent.name}/runs/${task.id}`)).json()) as {
      trace: { name: string; data: { by?: string } }[];
    };
    expect(trace.trace.find((s) => s.name === "approval")?.data.by).toMatch(/^token:/);
  });

  it("an input-required task outlives the agent's object: after an eviction tasks/get still finds it, and the answer completes it", async () => {
    const agent = await gatedAgent();
    const client = await clientOf(agent.name);
    const task = await send(client, "/tool clock.now {}");
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evict"))).rejects.toThrow("evict");

    const read = await client.getTask({ id: task.id, tenant: "", historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage(answerMessage(task.id, { decision: "approve" }))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0]?.parts)).toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it("an answer that is neither approve nor reject is refused, and the task keeps waiting", async () => {
    const agent = await gatedAgent();
    const client = await clientOf(agent.name);
    const task = await send(client, "/tool clock.now {}");
    await expect(
      client.sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: crypto.randomUUID(),
            role: "ROLE_USER",
            taskId: task.id,
            parts: [{ text: "maybe later" }],
          },
        }),
      ),
    ).rejects.toThrow(/approve' or 'reject/);
    expect((await client.getTask({ id: task.id, tenant: "", historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
  });

  it("tasks/cancel cancels the run (a chat token may), and a finished task cannot be cancelled", async () => {
    const agent = await gatedAgent();
    const client = await clientOf(agent.name, await tokenOf("chat"));
    const task = await send(client, "/tool clock.now {}");
    const cancelled = await client.cancelTask({ id: task.id, tenant: "", metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(
      ((await (await api(`/api/agents/${agent.name}/runs/${task.id}`)).json()) as { run: { status: string } }).run
        .status,
    ).toBe("cancelled");

    const finished = await send(client, "hello");
    await expect(client.cancelTask({ id: finished.id, tenant: "", metadata: undefined })).rejects.toThrow(
      /not cancelable|cannot be cancel/i,
    );
  });

  it("another agent's or another project's task is not found", async () => {
    const agent = await createAgent();
    const other = await createAgent();
    const task = await send(await clientOf(agent.name), "hello");
    await expect(
      (await clientOf(other.name)).getTask({ id: task.id, tenant: "", historyLength: undefined }),
    ).rejects.toThrow(/not found/i);
    const project = uniqueName("tenant");
    const foreignToken = await tokenOf("admin", project);
    const res = await SELF.fetch(`${base}/a2a/agents/${agent.name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${foreignToken}`, "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: task.id } }),
    });
    expect(res.status).toBe(401);
  });

  it("speaks A2A 0.3 too: message/send and tasks/get through the SDK's v0.3 transport", async () => {
    const agent = await createAgent();
    const client = await clientOf(agent.name);
    const legacy = new Client(
      new LegacyJsonRpcTransport({ endpoint: `${base}/a2a/agents/${agent.name}`, fetchImpl: fetchAs(adminToken) }),
      await client.getAgentCard(),
    );
    const task = (await legacy.sendMessage(userMessage("What is the launch code word?"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(
      textOf(
        (await legacy.getTask({ id: task.id, tenant: "", historyLength: undefined })).artifacts[0]?.parts,
      ).toLowerCase(),
    ).toContain("pineapple");
  });
});

describe("A2A errors are JSON-RPC errors", () => {
  const rpc = (agent: string, body: string, headers: Record<string, string> = {}) =>
    SELF.fetch(`${base}/a2a/agents/${agent}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", ...headers },
      body,
    });

  it("answers a body that is not JSON, nested too deep, not JSON by type, an unknown method, bad params and an unknown task in JSON-RPC's words", async () => {
    const agent = await createAgent();
    const parse = await rpc(agent.name, "{not json");
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });

    const deep = await rpc(agent.name, `${"[".repeat(70)}${"]".repeat(70)}`);
    expect(((await deep.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32700,
      message: expect.stringContaining("64 levels"),
    });

    const type = await SELF.fetch(`${base}/a2a/agents/${agent.name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "text/plain" },
      body: "{}",
    });
    expect(type.status).toBe(415);
    expect(((await type.json()) as { error: { code: number } }).error.code).toBe(-32005);

    const method = await rpc(
      agent.name,
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/explode", params: {} }),
    );
    expect(await method.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });

    const params = await rpc(
      agent.name,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "message/send",
        params: { message: { messageId: "m1", role: "user", kind: "message", parts: [] } },
      }),
    );
    expect(await params.json()).toMatchObject({
      id: 8,
      error: { code: expect.any(Number), message: expect.stringContaining("no text") },
    });

    const unknown = await rpc(
      agent.name,
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "GetTask", params: { id: "no-such-task" } }),
      { "a2a-version": "1.0" },
    );
    expect(await unknown.json()).toMatchObject({ id: 9, error: { code: -32001 } });

    const legacyUnknown = await rpc(
      agent.name,
      JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tasks/get", params: { id: "no-such-task" } }),
    );
    expect(await legacyUnknown.json()).toMatchObject({ id: 10, error: { code: -32001 } });

    const version = await rpc(
      agent.name,
      JSON.stringify({ jsonrpc: "2.0", id: 11, method: "GetTask", params: { id: "x" } }),
      { "a2a-version": "9.9" },
    );
    expect(((await version.json()) as { error: { code: number } }).error.code).toBe(-32009);
  });

  it("answers 401 without a token and 404 for an agent that does not exist", async () => {
    const agent = await createAgent();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } });
    expect(
      (
        await SELF.fetch(`${base}/a2a/agents/${agent.name}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        })
      ).status,
    ).toBe(401);
    const missing = await rpc(uniqueName("ghost"), body);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32600 } });
  });
});
