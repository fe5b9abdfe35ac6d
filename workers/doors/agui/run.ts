// The AG-UI run (loaded by ./index.ts on the first request): a RunAgentInput and streams AG-UI events (SSE,
// or AG-UI's protobuf framing when the client asks for it). The mapping is core/protocols/agui.ts;
// this shell authenticates, validates, reaches the agent's own run stream and paces it to the client.
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";
import { decisionsOf, makeAguiRun, type AguiRun, type PendingCall } from "../../../core/protocols/agui";
import { concatBytes } from "../../../core/bytes";
import { validationFailed } from "../../../core/errors";
import { agentStub, call, registryStub, type Remote } from "../../../durable-objects/stubs";
import { aguiImageSources, storeImageSources } from "../../images";
import type { AgentDO } from "../../../durable-objects/agent/agent-do";
import { checkScope, runPrincipal } from "../../auth";
import type { AppContext } from "../../env";
import { parseOrThrow } from "../../validation";
import { readRunEvents } from "../../../core/protocols/run-events";
import { sessionFor } from "../sessions";

/** The text of the newest user message: the turn. Earlier messages are the agent's own memory, not the request's. */
function turnOf(input: RunAgentInput): string {
  const index = input.messages.findLastIndex((m) => m.role === "user");
  if (index < 0)
    throw validationFailed([
      { path: ["messages"], message: "include a message with role 'user' (or resume an interrupt)" },
    ]);
  const content = (input.messages[index] as { content: unknown }).content;
  const path = ["messages", index, "content"];
  const text =
    typeof content === "string"
      ? content
      : (content as { type: string; text?: string }[])
          .map((part, i) => {
            if (part.type === "image" || part.type === "binary") return "";
            if (part.type !== "text")
              throw validationFailed([
                { path: [...path, i, "type"], message: `only text and image parts are supported (got '${part.type}')` },
              ]);
            return part.text ?? "";
          })
          .filter(Boolean)
          .join("\n");
  if (!text.trim() && !aguiImageSources(content, path.join(".")).length)
    throw validationFailed([{ path, message: "the last user message is empty" }]);
  if (text.length > 32_000) throw validationFailed([{ path, message: "at most 32,000 characters" }]);
  return text;
}

/** The images of the newest user message (AG-UI `image` parts), stored in the agent's store (../images). */
async function aguiImages(c: AppContext, name: string, input: RunAgentInput) {
  const index = input.messages.findLastIndex((m) => m.role === "user");
  const field = `messages.${index}.content`;
  const sources = aguiImageSources((input.messages[index] as { content: unknown }).content, field);
  const allowHosts = async () => (await call(registryStub(c.env, c.get("project")).getAgent(name))).runtime.allowHosts;
  return sources.length
    ? storeImageSources({ env: c.env, owner: { project: c.get("project"), agent: name }, allowHosts }, sources, field)
    : [];
}

/** The Pantheon run's wait, read when its stream ends without `done`: what the interrupt offers. */
async function waitOf(
  agent: Remote<AgentDO>,
  runId: string | null,
): Promise<{ runId: string; status: string; pending: PendingCall[]; decideBy?: number } | null> {
  if (!runId) return null;
  const found = await agent.getRun(runId);
  if (!found.ok) return null;
  const { run } = found.value as { run: { status: string; pending: PendingCall[]; decideBy?: number } };
  return {
    runId,
    status: run.status,
    pending: run.pending,
    ...(run.decideBy !== undefined ? { decideBy: run.decideBy } : {}),
  };
}

/**
 * The AG-UI stream, pulled: the agent's next run event is read only when the client has taken what
 * was sent, so nothing piles up here for a slow reader (the run itself never waits for it).
 */
function aguiStream(
  source: ReadableStream<Uint8Array>,
  run: AguiRun,
  encoder: EventEncoder,
  agent: Remote<AgentDO>,
): ReadableStream<Uint8Array> {
  const events = readRunEvents(source);
  let pending: BaseEvent[] = run.start();
  let closed = false;
  const encode = (batch: BaseEvent[]) => concatBytes(batch.map((event) => encoder.encodeBinary(event)));
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (pending.length === 0 && !closed) {
          try {
            const next = await events.next();
            if (next.done) {
              pending = run.finished ? [] : run.end(await waitOf(agent, run.pantheonRunId));
              closed = true;
            } else {
              pending = run.next(next.value);
            }
          } catch (error) {
            pending = run.finished
              ? []
              : [
                  {
                    type: EventType.RUN_ERROR,
                    message: error instanceof Error ? error.message : String(error),
                    code: "stream_failed",
                  } as BaseEvent,
                ];
            closed = true;
          }
        }
        if (pending.length) controller.enqueue(encode(pending));
        pending = [];
        if (closed) {
          controller.close();
          await events.return(undefined);
        }
      },
      async cancel() {
        await events.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

async function runAgui(c: AppContext, name: string, input: RunAgentInput): Promise<Response> {
  if (input.threadId.length > 200 || !input.threadId.trim())
    throw validationFailed([{ path: ["threadId"], message: "1 to 200 characters" }]);
  if (input.runId.length > 200) throw validationFailed([{ path: ["runId"], message: "at most 200 characters" }]);
  const agent = await agentStub(c.env, c.get("project"), name);
  const encoder = new EventEncoder({ accept: c.req.header("accept") ?? "text/event-stream" });
  let run: AguiRun;
  let source: ReadableStream<Uint8Array>;
  if (input.resume?.length) {
    // Answering an interrupt is deciding an approval: the approve scope, as POST …/runs/:id/approval.
    checkScope(c, "approve");
    const decided = decisionsOf(input.resume);
    if (!decided.ok) throw validationFailed([decided.problem]);
    source = await call(agent.decideStream(decided.runId, decided.decisions, c.get("principal"), c.get("scope")));
    const sessionId = ((await agent.getRun(decided.runId)) as { ok: boolean; value?: { run: { sessionId: string } } })
      .value?.run.sessionId;
    run = makeAguiRun({
      threadId: input.threadId,
      runId: input.runId,
      agent: name,
      pantheonRunId: decided.runId,
      ...(sessionId ? { sessionId } : {}),
      announced: decided.decisions.map((d) => d.callId),
    });
  } else {
    const content = turnOf(input);
    const images = await aguiImages(c, name, input);
    const session = await sessionFor(agent, "agui", input.threadId);
    source = await call(
      agent.chatStream({ content, ...(images.length ? { images } : {}), session, principal: runPrincipal(c, "agui") }),
    );
    run = makeAguiRun({ threadId: input.threadId, runId: input.runId, agent: name, sessionId: session });
  }
  return new Response(aguiStream(source, run, encoder, agent), {
    headers: {
      "content-type": encoder.getContentType(),
      "cache-control": "no-cache",
      "x-request-id": c.get("requestId"),
    },
  });
}

/** One AG-UI request of an agent that exists: the body checked against AG-UI's own schema, then the run. */
export async function handleAgui(c: AppContext, name: string, body: unknown): Promise<Response> {
  return runAgui(c, name, parseOrThrow(RunAgentInputSchema, body, "RunAgentInput") as RunAgentInput);
}
