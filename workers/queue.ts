import {
  makeErrorReply,
  parseBusMessage,
  requestIdOfReply,
  retryDelaySeconds,
  type BusMessage,
  type BusRequest,
} from "../core/bus";
import { unknownAgentMessage, type Result } from "../core/errors";
import type { Applied } from "../durable-objects/agent/bus/bus";
import type { BusLogEntry } from "../durable-objects/registry/bus-log";
import { agentStub, registryStub } from "../durable-objects/stubs";
import { pushQueue } from "../core/push";
import { consumePushJobs } from "./push-queue";

export const busQueue = "pantheon-bus";
export const deadLetterQueue = "pantheon-bus-dlq";

/** What the consumers reach: the agents, the registry's log, and the queue for replies. */
export interface ConsumerPorts {
  /**
   * Hands the message to its target's Durable Object (`busReceive`), which checks the connection
   * itself (from its `askedBy`, else at the registry); an agent that does not exist answers not_found.
   */
  deliver(message: BusMessage): Promise<Result<Applied>>;
  record(project: string, entries: BusLogEntry[]): Promise<void>;
  send(message: BusMessage): Promise<void>;
  now(): number;
}

/**
 * The real ports: the project's RegistryDO, the target's AgentDO, `env.BUS`.
 * @example
 * const consumers = makeBusConsumers(consumerPortsFromEnv(env));
 */
export function consumerPortsFromEnv(env: Env): ConsumerPorts {
  return {
    deliver: async (message) => (await agentStub(env, message.project, message.to)).busReceive(message),
    record: (project, entries) => registryStub(env, project).busRecord(entries),
    send: async (message) => void (await env.BUS.send(message, { contentType: "json" })),
    now: () => Date.now(),
  };
}

/** The request a reply answers, rebuilt from the reply (for an error about a lost reply). */
function requestOf(reply: Exclude<BusMessage, BusRequest | { type: "cancel" }>): BusRequest {
  return {
    ...reply,
    id: requestIdOfReply(reply.id),
    from: reply.to,
    to: reply.from,
    type: "request",
    payload: { question: "(a delegated question)" },
  };
}

function parsed(message: Message<unknown>): BusMessage | undefined {
  try {
    return parseBusMessage(message.body);
  } catch (error) {
    // Retrying cannot fix a malformed message: it is dropped, loudly.
    console.error(
      "bus: dropping a message that is not a BusMessage",
      message.id,
      error instanceof Error ? error.message : error,
    );
    message.ack();
    return undefined;
  }
}

/**
 * The two queue consumers. `bus`: hands each message to its target agent (which checks the
 * connection and applies each id once; no registry call on the way), and retries with backoff when
 * that fails; after `max_retries` the queue moves it to the dead-letter queue. `deadLetters`: records
 * the message as dead and tells the asker, so every question ends with an answer or an error. What a
 * batch logs goes to each project's registry in one call at the end of the batch.
 */
export function makeBusConsumers(ports: ConsumerPorts) {
  async function consume(
    queued: Message<unknown>,
    log: (message: BusMessage, entry: BusLogEntry) => void,
  ): Promise<void> {
    const message = parsed(queued);
    if (!message) return;
    try {
      const result = await ports.deliver(message);
      if (!result.ok && result.code === "not_found" && message.type === "request") {
        // Said in the project's terms (the agent, not its object), and logged before the error reply
        // leaves, so the log never shows the reply before the refusal.
        const note = unknownAgentMessage(message.to, message.project);
        await ports.record(message.project, [{ message, state: "refused", note }]);
        await ports.send(makeErrorReply(message, "not_found", note, ports.now()));
      } else if (!result.ok && result.code === "not_found") {
        log(message, { message, state: "ignored", note: `the asker is gone: ${result.message}` });
      } else if (!result.ok && result.code === "validation_failed") {
        log(message, { message, state: "dead", note: result.message });
      } else if (!result.ok) {
        throw new Error(`${result.code}: ${result.message}`);
      } else if (result.value.applied) {
        log(message, {
          message,
          state: "applied",
          ...(result.value.runId ? { runId: result.value.runId, runStatus: "running" } : {}),
        });
      }
      queued.ack();
    } catch (error) {
      console.warn(
        `bus: delivery of ${message.id} to '${message.to}' failed (attempt ${queued.attempts})`,
        error instanceof Error ? error.message : error,
      );
      queued.retry({ delaySeconds: retryDelaySeconds(queued.attempts) });
    }
  }

  async function bury(queued: Message<unknown>): Promise<void> {
    const message = parsed(queued);
    if (!message) return;
    const note = `delivery to '${message.to}' failed ${queued.attempts > 1 ? `${queued.attempts} times` : "repeatedly"}; moved to the dead-letter queue`;
    try {
      await ports.record(message.project, [{ message, state: "dead", note }]);
      // A cancel that cannot be delivered has nobody to tell: its asker gave the question up already.
      if (message.type === "cancel") return void queued.ack();
      const request = message.type === "request" ? message : requestOf(message);
      const error = makeErrorReply(
        request,
        "dead_letter",
        message.type === "request"
          ? `the question to '${message.to}' could not be delivered: ${note}`
          : `the answer from '${message.from}' could not be delivered: ${note}`,
        ports.now(),
      );
      // Straight to the asker, not through the queue again: a dead letter must not loop.
      const told = await ports.deliver(error);
      if (!told.ok) console.error(`bus: could not tell '${error.to}' about dead letter ${message.id}: ${told.message}`);
      await ports.record(message.project, [
        { message: error, state: told.ok ? "applied" : "dead", note: "sent by the dead-letter consumer" },
      ]);
    } catch (error) {
      console.error(`bus: dead letter ${message.id} could not be reported`, error);
    }
    queued.ack();
  }

  return {
    async bus(batch: MessageBatch<unknown>): Promise<void> {
      const byProject = new Map<string, BusLogEntry[]>();
      const log = (message: BusMessage, entry: BusLogEntry) =>
        byProject.set(message.project, [...(byProject.get(message.project) ?? []), entry]);
      await Promise.all(batch.messages.map((queued) => consume(queued, log)));
      // The log is a record, not the delivery: a failure to write it is reported, not retried.
      await Promise.all(
        [...byProject].map(([project, entries]) =>
          ports
            .record(project, entries)
            .catch((error: unknown) =>
              console.warn(`bus: could not log ${entries.length} entries of project '${project}'`, error),
            ),
        ),
      );
    },
    async deadLetters(batch: MessageBatch<unknown>): Promise<void> {
      await Promise.all(batch.messages.map(bury));
    },
  };
}

/** The worker's `queue()` entry: routes a batch to its consumer by queue name. */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === pushQueue) return consumePushJobs(batch, env);
  const consumers = makeBusConsumers(consumerPortsFromEnv(env));
  if (batch.queue === deadLetterQueue || batch.queue.endsWith("-dlq")) return consumers.deadLetters(batch);
  return consumers.bus(batch);
}
