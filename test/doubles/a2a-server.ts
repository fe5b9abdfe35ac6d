// A remote A2A agent for workerd tests, built from the A2A SDK's own server classes
// (DefaultRequestHandler, InMemoryTaskStore, JsonRpcTransportHandler) on 127.0.0.1; started by
// vitest.config.ts (A2A_TEST_URL).
//   GET  /t/<tenant>/.well-known/agent-card.json   the card (JSON-RPC 1.0 at /t/<tenant>)
//   POST /t/<tenant>                               JSON-RPC; the agent answers "remote echo: <text>",
//                                                  asks for input when the text says "need input",
//                                                  fails when it says "please fail"
//   GET  /__calls?tenant=<t>                       what it received: { text, authorization } each
// A tenant named `elsewhere-…` has a card that sends clients to `localhost` instead of 127.0.0.1.
// Each test uses its own tenant, so it sees only its own calls.
import type { IncomingMessage } from "node:http";
import { AgentCard, Role, TaskState, type Message } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
} from "@a2a-js/sdk/server";
import { listenOnLoopback } from "./loopback-server";

export interface RecordedA2aCall {
  text: string;
  authorization: string | null;
}

const textOf = (message: Message) =>
  message.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

const agentMessage = (taskId: string, contextId: string, text: string): Message => ({
  messageId: crypto.randomUUID(),
  taskId,
  contextId,
  role: Role.ROLE_AGENT,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

function makeExecutor(record: (text: string) => void): AgentExecutor {
  return {
    async execute(request, bus) {
      const { taskId, contextId } = request;
      const text = textOf(request.userMessage);
      record(text);
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        }),
      );
      const status = (state: TaskState, words: string) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: { state, message: agentMessage(taskId, contextId, words), timestamp: new Date().toISOString() },
            metadata: undefined,
          }),
        );
      if (text.includes("need input")) return status(TaskState.TASK_STATE_INPUT_REQUIRED, "which city do you mean?");
      if (text.includes("please fail")) return status(TaskState.TASK_STATE_FAILED, "the remote agent gave up");
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: "answer",
            name: "answer",
            description: "",
            parts: [
              {
                content: { $case: "text", value: `remote echo: ${text}` },
                metadata: undefined,
                filename: "",
                mediaType: "text/plain",
              },
            ],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED, "done");
    },
    async cancelTask() {},
  };
}

/** A tenant named `elsewhere-…` gets a card whose endpoint is on another host name (`localhost`). */
function cardFor(base: string, tenant: string): AgentCard {
  const endpoint = `${tenant.startsWith("elsewhere") ? base.replace("127.0.0.1", "localhost") : base}/t/${tenant}`;
  return {
    name: "remote-echo",
    description: "Echoes what it is asked, from another agent system",
    supportedInterfaces: [{ url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "echo",
        name: "echo",
        description: "echoes",
        tags: [],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startA2aTestServer(): Promise<{ url: string; close(): void }> {
  const calls = new Map<string, RecordedA2aCall[]>();
  const handlers = new Map<string, JsonRpcTransportHandler>();
  let base = "";
  const transportFor = (tenant: string, authorization: () => string | null) => {
    let transport = handlers.get(tenant);
    if (!transport) {
      const record = (text: string) =>
        calls.set(tenant, [...(calls.get(tenant) ?? []), { text, authorization: authorization() }]);
      transport = new JsonRpcTransportHandler(
        new DefaultRequestHandler(cardFor(base, tenant), new InMemoryTaskStore(), makeExecutor(record)),
      );
      handlers.set(tenant, transport);
    }
    return transport;
  };
  let currentAuthorization: string | null = null;
  const { url, server } = await listenOnLoopback(
    async (req, res) => {
      const path = new URL(req.url ?? "/", "http://x");
      if (path.pathname === "/__calls") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(calls.get(path.searchParams.get("tenant") ?? "") ?? []));
      }
      const match = /^\/t\/([a-z0-9-]+)(\/\.well-known\/agent-card\.json)?$/.exec(path.pathname);
      if (!match) {
        res.writeHead(404);
        return res.end();
      }
      const tenant = match[1]!;
      if (match[2]) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(AgentCard.toJSON(cardFor(base, tenant))));
      }
      currentAuthorization = req.headers.authorization ?? null;
      const answer = await transportFor(tenant, () => currentAuthorization).handle(
        await bodyOf(req),
        new ServerCallContext({ requestedVersion: "1.0" }),
      );
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    },
    { json: true },
  );
  base = url;
  return { url, close: () => server.close() };
}
