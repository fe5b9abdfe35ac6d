import type { QuotaLimits, Spend } from "../quotas/limits";
import type { Deployment, ProviderFacts, ResolvedModel } from "../models";

// What the doctor reads (the facts the worker gathers: workers/api/doctor.ts) and what it answers.

export type CheckStatus = "ok" | "warn" | "problem";

export interface DoctorCheck {
  /** Stable id, e.g. `binding:AGENT_DO`, `secret:OPENAI_API_KEY`, `model:scout`. */
  id: string;
  area:
    | "durable-objects"
    | "queues"
    | "vectorize"
    | "workers-ai"
    | "secrets"
    | "models"
    | "tool-secrets"
    | "migrations"
    | "cron"
    | "gateways"
    | "quotas"
    | "mcp";
  status: CheckStatus;
  message: string;
  /** The command or edit that fixes a problem or a warning. */
  fix?: string;
}

export interface AgentFacts {
  name: string;
  model: { provider: string; name: string; fallback?: { provider: string; name: string } | undefined };
  /** Secret names the agent's HTTP tools and A2A agents put in headers. */
  toolSecretRefs: string[];
  /** Applied migration timestamps of its database, or why they could not be read. */
  migrations: number[] | { error: string };
  telegram?: { botTokenSecret: string; botTokenPresent: boolean; anyChat: boolean; approvers: number };
  email?: { allowedSenders: number };
  /** Its MCP servers that need a person to authorise them again (an OAuth token that could not be refreshed). */
  mcpNeedsAuthorising?: { server: string; reason: string }[];
}

export interface DoctorFacts {
  deployment: Deployment;
  /** The server's own URL as the request reached it (`http://127.0.0.1:8788`): the fixes that call the server use it. */
  origin: string;
  version: string;
  now: number;
  bindings: {
    AGENT_DO: boolean;
    REGISTRY: boolean;
    BUS: boolean;
    VECTORIZE: boolean;
    AI: boolean;
    /** The push queue (pantheon-push); left out by reports that predate it, read as bound. */
    PUSH?: boolean;
  };
  registry: { ok: true } | { ok: false; error: string };
  /** The project's own MCP servers (for all its agents) whose OAuth needs an admin to authorise it again. */
  projectMcpNeedsAuthorising?: { server: string; reason: string }[];
  /** Vectorize's own description of the index (production), or why it could not be read. */
  vectorize?: { dimensions: number | null } | { error: string };
  embedder: { model: string; dimensions: number };
  /** Presence of each secret or var by name. */
  secrets: Record<string, boolean>;
  providers: ProviderFacts;
  /**
   * What the project's agents resolve against when the project sets model settings of its own
   * (core/models project-keys): its keys in place of the deployment's. Absent: `providers`.
   */
  projectProviders?: ProviderFacts;
  /** `PANTHEON_DEFAULT_PROVIDER` as configured. */
  defaultProvider: string | undefined;
  /** Names in `PANTHEON_TOOL_SECRETS` (reserved names already left out); reached by the project `default` only. */
  toolSecrets: string[];
  /** The project's own secrets (names only), the deployment secrets granted to it (set or not), and whether the deployment key is set. */
  projectSecrets: { project: string; own: string[]; granted: { name: string; present: boolean }[]; keySet: boolean };
  /** Journal timestamps (`when`) and tags of the bundled migrations. */
  journals: { agent: { when: number; tag: string }[]; registry: { when: number; tag: string }[] };
  registryMigrations: number[] | { error: string };
  deadLetters: number;
  lastCronTick: number | null;
  /** `TELEGRAM_API_BASE` checked (an error message when it is not usable). */
  telegramApiBase: { ok: true } | { ok: false; error: string };
  agents: AgentFacts[];
  /** Today's spend against the daily caps (core/doctor quotas.ts); absent when it could not be read. */
  quotas?: QuotaFacts;
}

export interface DoctorReport {
  ok: boolean;
  deployment: Deployment;
  version: string;
  checkedAt: number;
  summary: Record<CheckStatus, number>;
  checks: DoctorCheck[];
  /** What each agent's model resolves to here, and why. */
  agents: { name: string; resolvedModel: ResolvedModel }[];
}

/** The fix of a problem a deploy repairs (bundled migrations, bindings set in wrangler.toml). */
export const deployFix = "npm run deploy";

/** Today's spend against the caps that hold, per project and per agent (workers/api/quotas.ts quotaReport). */
export interface QuotaFacts {
  project: { name: string; effective: QuotaLimits; ceiling: QuotaLimits; used: Spend; resetsAt: string };
  agents: { name: string; limits: QuotaLimits; used: Spend }[];
}
