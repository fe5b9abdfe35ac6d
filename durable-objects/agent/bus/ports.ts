import type { RunPrincipal } from "../../../core/auth";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { AgentProfile } from "../../../core/agents";
import type { BusMessage, BusRequest, Refusal } from "../../../core/bus";
import type { Result } from "../../../core/errors";
import type { Clock } from "../../../core/ports";
import type { RunEvent as CoreEvent, RunOrigin } from "../../../core/run";
import { agentStub, registryStub } from "../../stubs";
import type { BusLogEntry } from "../../registry/bus-log";
import type { RunStore } from "../runs/store";
import type { SpawnDeps } from "./spawn";
import type { ChildAlarm, SupervisorDeps } from "./supervisor";
import type * as schema from "../schema";

export type Db = DrizzleSqliteDODatabase<typeof schema>;

export interface AskRequest {
  runId: string;
  callId: string;
  target: string;
  question: string;
  /** Whom the asking run acts for: the asked agent's run acts with no more (a spawned child's behaviors neither). */
  principal?: RunPrincipal;
}

/** What applying one delivered message did. */
export interface Applied {
  applied: boolean;
  /** Requests: the run started for it. */
  runId?: string;
  /** Why nothing was applied (a repeat, a late answer). */
  reason?: string;
}

/** Where the bus reaches outside the object: the queue, the registry, other agents. */
export interface BusPorts {
  /** Puts a message on the queue (`env.BUS.send`). */
  send(message: BusMessage): Promise<void>;
  /**
   * Hands a message straight to its target's Durable Object (`busReceive`), skipping the queue's two
   * hops. Anything but a clean answer (an error, a refusal, an agent that does not exist) sends the
   * message through the queue instead, whose consumer retries, dead-letters and answers errors.
   */
  deliverDirect?(message: BusMessage): Promise<Result<Applied>>;
  /** Records in the registry's bus log (the bus batches entries: one call per burst, never awaited by a message). */
  record(entries: BusLogEntry[]): Promise<void>;
  /**
   * The registry's admission of a request (the truth about connections; records `delivered` or the
   * refusal), asked only when this agent's own `askedBy` does not already admit the asker.
   */
  admit(message: BusRequest): Promise<Refusal | undefined>;
  spawnChild: SpawnDeps["spawnChild"];
  /** Archives a spawned child (registry): out of every connection, its history kept. Only its parent may. */
  archiveChild(parent: string, child: string): Promise<Result<{ child: AgentProfile; parent: AgentProfile }>>;
  /** Pushes a profile to another agent's Durable Object. */
  configureAgent(profile: AgentProfile): Promise<void>;
}

/**
 * The real ports: Cloudflare Queues and the project's registry.
 * @example
 * makeAgentBus({ ...busPortsFromEnv(env, () => project), db, clock, ... });
 */
export function busPortsFromEnv(env: Env, project: () => string): BusPorts {
  return {
    send: async (message) => void (await env.BUS.send(message, { contentType: "json" })),
    deliverDirect: (message) => agentStub(env, project(), message.to).busReceive(message),
    record: (entries) => registryStub(env, project()).busRecord(entries),
    admit: (message) => registryStub(env, project()).busAdmit(message),
    spawnChild: (parent, scriptSource, configuredBy) => registryStub(env, project()).spawnChild(parent, scriptSource, configuredBy),
    archiveChild: (parent, child) => registryStub(env, project()).archiveChild(parent, child),
    configureAgent: async (profile) => void (await (await agentStub(env, project(), profile.name)).configure(profile)),
  };
}

export interface BusDeps extends BusPorts {
  db: Db;
  clock: Clock;
  runs: RunStore;
  project: () => string;
  profile: () => AgentProfile;
  deliver(runId: string, event: CoreEvent): Promise<unknown>;
  /** Writes a run's record and its request (no transaction of its own: the bus holds one). */
  createRun(input: { runId: string; sessionId: string; origin: RunOrigin }): unknown;
  /** Drives a run created by `createRun`. */
  startRun(runId: string): Promise<unknown>;
  /** Cancels a run (a cancel from its asker), and with it what that run asks in turn. */
  cancelRun(runId: string, by: string): Promise<unknown>;
  /** One SQLite transaction. */
  transaction<T>(fn: () => T): T;
  /** Re-sends what the queue has not taken yet, after `seconds` (an alarm; idempotent). */
  retryLater(seconds: number): Promise<unknown>;
  createSession(title: string): string;
  /** Deadline alarms (agents SDK `schedule`, callback `onBusDeadline` with the request's id). */
  deadlines: {
    /** When the earliest deadline alarm after `after` fires (epoch ms), or null. */
    next(after: number): number | null;
    arm(at: number, messageId: string): Promise<unknown>;
  };
  /** The object's synchronous key-value storage: the supervisor's records (bus/supervisor.ts). */
  kv: SupervisorDeps["kv"];
  /** Arms the supervisor's alarm (agents SDK `schedule`, callback `onChildAlarm`). */
  armChildAlarm(at: number, alarm: ChildAlarm): Promise<unknown>;
  /** This agent's own profile changed (spawn added a connection). */
  configureSelf(profile: AgentProfile): Promise<void>;
  /** The output gates on what a fan-out sends or decides: why `text` may not leave, or null. */
  screenOutput?(text: string, runId?: string): string | null;
  /**
   * An answer for something that is neither a run nor a fan-out (a workflow step, `askFor`): true
   * when it was taken.
   */
  handElsewhere?(replyTo: { runId: string; callId: string }, from: string, reply: { answer?: string; error?: string }): boolean;
  /** How long an asker waits for an answer; default 2 minutes. */
  deadlineMs?: number;
}
