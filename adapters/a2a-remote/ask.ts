// The A2A SDK's client side of an `ask_<name>` call: loaded on the first call (see ./index.ts).
import { SendMessageRequest, TaskState, type Message, type Task } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";

export class A2aRemoteError extends Error {
  override readonly name = "A2aRemoteError";
}

const textOfParts = (parts: Message["parts"] | undefined) =>
  (parts ?? [])
    .map((p) =>
      p.content?.$case === "text"
        ? p.content.value
        : p.content?.$case === "data"
          ? JSON.stringify(p.content.value)
          : "",
    )
    .filter(Boolean)
    .join("\n");

/** What the remote agent said, as the tool's output; a failed, rejected or canceled task is the tool's error. */
export function answerOf(result: Message | Task): string {
  if ("messageId" in result) return textOfParts(result.parts);
  const state = result.status?.state;
  const said = textOfParts(result.status?.message?.parts);
  const artifacts = result.artifacts
    .map((a) => textOfParts(a.parts))
    .filter(Boolean)
    .join("\n");
  if (state === TaskState.TASK_STATE_COMPLETED) return artifacts || said;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED) {
    return `the remote agent needs more input before it can finish (task ${result.id}): ${said || "no details given"}`;
  }
  if (
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_REJECTED ||
    state === TaskState.TASK_STATE_CANCELED
  ) {
    throw new A2aRemoteError(
      `the remote agent's task ${result.id} ended ${TaskState[state]?.replace("TASK_STATE_", "").toLowerCase()}: ${said || "no reason given"}`,
    );
  }
  return `the remote agent is still working on task ${result.id}${said ? `: ${said}` : ""}`;
}

/**
 * Reads the agent's card at `cardUrl`, picks the JSON-RPC transport it names (1.0, or 0.3 for
 * older agents) and sends one blocking message; every request goes through `fetchImpl`.
 */
export async function askRemote(input: {
  cardUrl: string;
  question: string;
  messageId: string;
  fetchImpl: typeof fetch;
  signal: AbortSignal;
}): Promise<string> {
  const { fetchImpl } = input;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
    }),
  );
  const client = await factory.createFromUrl(input.cardUrl, "");
  const request = SendMessageRequest.fromJSON({
    message: { messageId: input.messageId, role: "ROLE_USER", parts: [{ text: input.question }] },
  });
  return answerOf(await client.sendMessage(request, { signal: input.signal }));
}
