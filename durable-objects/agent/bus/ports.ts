import type { RunPrincipal } from "../../../core/auth";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { AgentProfile } from "../../../core/agents";
import type { BusMessage, BusRequest, Refusal } from "../../../core/bus";
import type { Result } from "../../../core/errors";
import { agentStub, registryStub } from "../../stubs";
import type { BusLogEntry } from "../../registry/bus-log";
import type { SessionStore } from "../chat/sessions";
import type { AgentHost } from "../host";
import type { ProfileHolder } from "../profile";
import type { RunDriver } from "../runs/driver";
import type { OutputScreens } from "../runs/output-screens";
import type { RunStore } from "../runs/store";
import type { SpawnDeps } from "./spawn";
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
    spawnChild: (parent, scriptSource, configuredBy) =>
      registryStub(env, project()).spawnChild(parent, scriptSource, configuredBy),
    archiveChild: (parent, child) => registryStub(env, project()).archiveChild(parent, child),
    configureAgent: async (profile) => void (await (await agentStub(env, project(), profile.name)).configure(profile)),
  };
}

export interface BusDeps extends BusPorts {
  /** The agent's object: its database, clock, key-value storage (the supervisor's records), alarms, project, and its own `configure` (spawn added a connection). */
  host: Pick<AgentHost, "db" | "clock" | "storage" | "alarms" | "project" | "configure">;
  runs: RunStore;
  profiles: Pick<ProfileHolder, "get">;
  /**
   * The run driver below the bus: a request creates and starts a run, an answer is delivered to the
   * run that asked, a cancel cancels. The driver asks back through the bus (RunPeers, runs/contracts.ts).
   */
  driver: Pick<RunDriver, "create" | "startCreated" | "deliver" | "cancel">;
  /** A request from another agent opens a session of its own. */
  sessions: Pick<SessionStore, "create">;
  /** The output gates on what a fan-out or a workflow sends or decides. */
  screens: Pick<OutputScreens, "screenFor">;
  /** One SQLite transaction. */
  transaction<T>(fn: () => T): T;
  /** How long an asker waits for an answer; default 2 minutes. */
  deadlineMs?: number;
}

/**
 * Takes an answer for something that is neither a run nor a fan-out (a workflow step, `askFor`): true
 * when it was taken.
 */
export type AnswerTaker = (
  replyTo: { runId: string; callId: string },
  reply: { answer?: string; error?: string },
) => boolean;
