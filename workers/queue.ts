import { makeErrorReply, parseBusMessage, requestIdOfReply, retryDelaySeconds, type BusMessage, type BusRequest, type Refusal } from "../core/bus";
import type { Result } from "../core/errors";
import type { Applied } from "../durable-objects/agent/bus/bus";
import type { BusLogEntry } from "../durable-objects/registry/bus-log";
import { agentStub, registryStub } from "../durable-objects/stubs";

export const busQueue = "pantheon-bus";
export const deadLetterQueue = "pantheon-bus-dlq";

/** What the consumers reach: the registry (admission, log), the agents, and the queue for replies. */
export interface ConsumerPorts {
  /** The registry checks the target exists and the asker is connected to it; records `delivered` or the refusal. */
  admit(message: BusMessage): Promise<Refusal | undefined>;
  /** Hands the message to its target's Durable Object (`busReceive`). */
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
    admit: (message) => registryStub(env, message.project).busAdmit(message),
    deliver: async (message) => (await agentStub(env, message.project, message.to)).busReceive(message),
    record: (project, entries) => registryStub(env, project).busRecord(entries),
    send: async (message) => void (await env.BUS.send(message, { contentType: "json" })),
    now: () => Date.now(),
  };
}

/** The request a reply answers, rebuilt from the reply (for an error about a lost reply). */
function requestOf(reply: Exclude<BusMessage, BusRequest>): BusRequest {
  return { ...reply, id: requestIdOfReply(reply.id), from: reply.to, to: reply.from, type: "request", payload: { question: "(a delegated question)" } };
}

function parsed(message: Message<unknown>): BusMessage | undefined {
  try {
    return parseBusMessage(message.body);
  } catch (error) {
    // Retrying cannot fix a malformed message: it is dropped, loudly.
    console.error("bus: dropping a message that is not a BusMessage", message.id, error instanceof Error ? error.message : error);
    message.ack();
    return undefined;
  }
}

/**
 * The two queue consumers. `bus`: admits each message at the registry, hands it to its target agent
 * (which applies each id once), and retries with backoff when that fails; after `max_retries` the
 * queue moves it to the dead-letter queue. `deadLetters`: records the message as dead and tells the
 * asker, so every question ends with an answer or an error.
 */
export function makeBusConsumers(ports: ConsumerPorts) {
  async function consume(queued: Message<unknown>): Promise<void> {
    const message = parsed(queued);
    if (!message) return;
    try {
      // Requests are admitted at the registry (the target exists, the asker is connected to it). A
      // reply needs no admission: the asker applies only a reply to a request it is still waiting
      // on, and one registry round trip less per delegation is what the throughput is bound by.
      if (message.type === "request") {
        const refusal = await ports.admit(message);
        if (refusal) {
          await ports.send(makeErrorReply(message, refusal.code, refusal.error, ports.now()));
          return queued.ack();
        }
      }
      const result = await ports.deliver(message);
      if (!result.ok && result.code === "not_found" && message.type === "request") {
        await ports.record(message.project, [{ message, state: "refused", note: result.message }]);
        await ports.send(makeErrorReply(message, "not_found", result.message, ports.now()));
      } else if (!result.ok && result.code === "not_found") {
        await ports.record(message.project, [{ message, state: "ignored", note: `the asker is gone: ${result.message}` }]);
      } else if (!result.ok && result.code === "validation_failed") {
        await ports.record(message.project, [{ message, state: "dead", note: result.message }]);
      } else if (!result.ok) {
        throw new Error(`${result.code}: ${result.message}`);
      } else if (result.value.applied) {
        await ports.record(message.project, [{ message, state: "applied", ...(result.value.runId ? { runId: result.value.runId, runStatus: "running" } : {}) }]);
      }
      queued.ack();
    } catch (error) {
      console.warn(`bus: delivery of ${message.id} to '${message.to}' failed (attempt ${queued.attempts})`, error instanceof Error ? error.message : error);
      queued.retry({ delaySeconds: retryDelaySeconds(queued.attempts) });
    }
  }

  async function bury(queued: Message<unknown>): Promise<void> {
    const message = parsed(queued);
    if (!message) return;
    const note = `delivery to '${message.to}' failed ${queued.attempts > 1 ? `${queued.attempts} times` : "repeatedly"}; moved to the dead-letter queue`;
    try {
      await ports.record(message.project, [{ message, state: "dead", note }]);
      const request = message.type === "request" ? message : requestOf(message);
      const error = makeErrorReply(request, "dead_letter", message.type === "request" ? `the question to '${message.to}' could not be delivered: ${note}` : `the answer from '${message.from}' could not be delivered: ${note}`, ports.now());
      // Straight to the asker, not through the queue again: a dead letter must not loop.
      const told = await ports.deliver(error);
      if (!told.ok) console.error(`bus: could not tell '${error.to}' about dead letter ${message.id}: ${told.message}`);
      await ports.record(message.project, [{ message: error, state: told.ok ? "applied" : "dead", note: "sent by the dead-letter consumer" }]);
    } catch (error) {
      console.error(`bus: dead letter ${message.id} could not be reported`, error);
    }
    queued.ack();
  }

  return {
    async bus(batch: MessageBatch<unknown>): Promise<void> {
      await Promise.all(batch.messages.map(consume));
    },
    async deadLetters(batch: MessageBatch<unknown>): Promise<void> {
      await Promise.all(batch.messages.map(bury));
    },
  };
}

/** The worker's `queue()` entry: routes a batch to its consumer by queue name. */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const consumers = makeBusConsumers(consumerPortsFromEnv(env));
  if (batch.queue === deadLetterQueue || batch.queue.endsWith("-dlq")) return consumers.deadLetters(batch);
  return consumers.bus(batch);
}
