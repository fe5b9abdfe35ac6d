// What an agent's features may use of the Durable Object they live in, named once. The features take
// an `AgentHost` (AgentDO implements it) and the features below them as objects, never the AgentDO
// type or a closure pointing back up: go-to-definition on `host.alarms.at` lands on AgentDO's own
// method, and no feature module imports the object that builds it (features.ts says the order).
import type { Schedule, ScheduleCriteria, ScheduleOptions } from "agents";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { AgentProfile } from "../../core/agents";
import type { Clock } from "../../core/ports";
import type { RetryOptions } from "agents";
import type * as schema from "./schema";

export type AgentDb = DrizzleSqliteDODatabase<typeof schema>;

/**
 * The agent's alarm callbacks: AgentDO methods the agents SDK calls back by name. A feature names one
 * of these, so a renamed method fails to compile here and in AgentObject (which implements a method for each).
 */
export type AlarmCallback =
  | "onRunWatchdog"
  | "onRunDeadline"
  | "onBehaviorAlarm"
  | "onMemoryIdle"
  | "onBusFlush"
  | "onBusDeadline"
  | "onChildAlarm"
  | "onTelemetryFlush";

/** The agents SDK's scheduling, restricted to the agent's own alarm callbacks. */
export interface AgentAlarms {
  /** The alarms armed now (synchronous: the SDK's table in this object's SQLite), of one callback when named. */
  armed(callback?: AlarmCallback, criteria?: ScheduleCriteria): Schedule<unknown>[];
  /** One alarm of `callback` in `seconds`, unless one is armed already (a retry, a watchdog: never two). */
  armOnce(seconds: number, callback: AlarmCallback): Promise<void>;
  /** The same, through the SDK's asynchronous listing. */
  list(): Promise<Schedule<unknown>[]>;
  /** One alarm at `when` (a date, or seconds from now). */
  at(
    when: Date | number,
    callback: AlarmCallback,
    payload?: unknown,
    options?: ScheduleOptions,
  ): Promise<Schedule<unknown>>;
  /** A recurring alarm every `seconds` (the SDK keeps one per callback, interval and payload). */
  every(
    seconds: number,
    callback: AlarmCallback,
    payload?: unknown,
    options?: { retry?: RetryOptions },
  ): Promise<Schedule<unknown>>;
  cancel(id: string): Promise<boolean>;
}

export interface AgentHost {
  readonly env: Env;
  readonly clock: Clock;
  readonly db: AgentDb;
  /** The object's storage: synchronous key-value (`kv`), raw SQL (`sql`, FTS5 and vectors), transactions. */
  readonly storage: DurableObjectState["storage"];
  readonly alarms: AgentAlarms;
  /** `<project>.<agent>`, the object's name (the SDK sets it after construction: read it when used). */
  objectName(): string;
  project(): string;
  /** The agent's name within its project. */
  agentName(): string;
  /** Work that may outlast the request or alarm that started it (the object's `waitUntil`). */
  background(work: Promise<unknown>): void;
  /**
   * The registry's push of a profile (create, update, a spawn that added a connection): stored,
   * secrets read afresh, behaviors re-armed. The object's own method, since it may first forget a
   * predecessor of another incarnation.
   */
  configure(profile: AgentProfile): Promise<void>;
}
