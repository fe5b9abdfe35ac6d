import type { AgentProfile } from "../../../core/agents";
import {
  defaultTuning,
  itemsTuning,
  makeLlmSummarizer,
  reciprocalRankFusion,
  tuningForEmbedder,
  type MemoryKind,
} from "../../../core/context";
import { isPantheonError, PantheonError, unwrap, type Result } from "../../../core/errors";
import type { LlmPort } from "../../../core/ports";
import { limitsOf } from "../../../core/run/limits";
import { splitSource, type ForeignSearch, type SharedHits } from "./context-store";
import { makeContextTurns, type SessionHistory, type SettingsPort } from "./context-turn";
import { addDocument, exportLines, importLines } from "./io";
import { makeMemoryLifecycle } from "./lifecycle";
import { memoryPortsFromEnv } from "./ports";
import { ownSource, type MemoryRecord } from "./records";
import { makeMemoryStore } from "./store";
import { memoryTools } from "./tools";
import { contextTools } from "./context-tools";
import { makeSharing, scriptOf, type SourceListing } from "./sharing";
import type { MemoryItem } from "../../../core/context";
import { llmForProfile } from "../runs/models";
import type { OutputScreens } from "../runs/output-screens";
import type { AgentHost } from "../host";
import { withQuota, type QuotaKeeper } from "../quotas";
import { capsOf } from "../../../core/quotas";
import type { ToolSource } from "../runs/tools";

/** Consolidation runs this long after the agent's last turn (re-armed by every turn). */
export const idleSeconds = 15 * 60;

export interface MemoryFeatureDeps {
  /** The agent's object: its database (drizzle for rows, raw SQL only for FTS5 and the local vector index), its idle alarm (`onMemoryIdle`), work after the reply. */
  host: Pick<
    AgentHost,
    "env" | "clock" | "db" | "storage" | "alarms" | "objectName" | "project" | "agentName" | "background"
  >;
  /** The chat feature's stores: a session's history (and its newest message: a fired idle alarm can tell it came too early), and the agent's settings. */
  messages: SessionHistory & { lastAt(): number | undefined };
  settings: SettingsPort;
  /**
   * The output gates for the agent as it is now (`screenFor`): every background write of model output
   * here (the summary fold, extraction) passes them (core/gates/sinks). `projectModel`: the project's own
   * model settings, so a summary fold or an extraction calls the model with the project's key like a turn.
   */
  screens: Pick<OutputScreens, "screenFor" | "projectModel">;
  /** The agent's daily caps (quotas/): a summary fold or an extraction spends like a turn. */
  quota?: QuotaKeeper;
}

export interface TurnInput {
  profile: AgentProfile;
  sessionId: string;
  query: string;
  /** The run the context is for: its own messages (the request, already stored) are not history. */
  excludeRunId?: string;
  maxHistory?: number;
  maxTokens?: number;
  /** Ranked memories the compile may include (the token budget still applies); the engine's `maxItems` otherwise. */
  k?: number;
}

/**
 * Per-agent memory and the context engine, wired to the agent's SQLite and the configured ports.
 * AgentDO holds one and delegates to it: context for each turn, extraction after it, idle
 * consolidation, the memory tools, the memory and context API, and shared sources.
 *
 * @example
 * const memory = makeMemoryFeature({ host, messages, settings, screens, quota });
 * const { context } = await memory.contextFor({ profile, sessionId, query: "What is my dog called?" });
 */
export function makeMemoryFeature(deps: MemoryFeatureDeps) {
  const { env, clock } = deps.host;
  const sql = deps.host.storage.sql;
  let ports: ReturnType<typeof memoryPortsFromEnv> | undefined;
  const portsNow = () => (ports ??= memoryPortsFromEnv(env, sql, deps.host.objectName()));
  const memory = makeMemoryStore({ db: deps.host.db, sql, clock, ports: portsNow });
  const project = () => deps.host.project();
  const self = () => deps.host.agentName();

  /** Another agent of the project (`owner`), through the RPC methods of sharing.ts; it decides per requester. */
  const ownerStub = (owner: string) =>
    env.AGENT_DO.get(env.AGENT_DO.idFromName(`${project()}.${owner}`)) as unknown as {
      searchShared(request: {
        source: string;
        query: string;
        limit: number;
        requester: string;
      }): Promise<Result<SharedHits>>;
      readShared(request: { source: string; limit: number; requester: string }): Promise<Result<MemoryItem[]>>;
      sharedSources(requester: string): Promise<Result<SourceListing[]>>;
    };
  const foreign: ForeignSearch = async (owner, source, query, limit) =>
    unwrap(await ownerStub(owner).searchShared({ source, query, limit, requester: self() }));
  const sharing = makeSharing(memory);

  /** Own document sources and every source another agent (listed, or connected either way) grants this one. */
  async function usableSources(profile: AgentProfile): Promise<SourceListing[]> {
    const { details } = scriptOf(profile);
    const own = sourcesFor(profile).filter((s) => s !== ownSource && !s.includes("/"));
    const owners = new Set([
      ...sourcesFor(profile).flatMap((s) => splitSource(s).owner ?? []),
      ...profile.connections,
      ...(profile.askedBy ?? []),
    ]);
    owners.delete(self());
    const granted = await Promise.all(
      [...owners].slice(0, 64).map(async (owner) => {
        try {
          return unwrap(await ownerStub(owner).sharedSources(self()));
        } catch (error) {
          if (isPantheonError(error)) return [];
          throw error;
        }
      }),
    );
    return [...own.map((source): SourceListing => ({ source, ...details[source], access: "read" })), ...granted.flat()];
  }

  const turns = makeContextTurns({ clock, memory, messages: deps.messages, settings: deps.settings, foreign });
  const lifecycle = makeMemoryLifecycle({ clock, memory, settings: deps.settings });

  /** Memory plus the script's sources; with no script, memory plus every source the agent holds. */
  function sourcesFor(profile: AgentProfile): string[] {
    const listed = scriptOf(profile).contextSources;
    const own = listed ?? memory.sources();
    const named = own.map((s) => (splitSource(s).owner === self() ? splitSource(s).name : s));
    return [...new Set([ownSource, ...named])];
  }

  /** Hybrid search (words + meaning, fused by rank) over the agent's own sources. */
  async function search(query: string, options: { limit: number; kind?: MemoryKind; sources?: string[] }) {
    const sources = options.sources ?? [ownSource, ...memory.sources()];
    const topK = Math.max(options.limit * 2, 20);
    const lexical = memory.lexical(query, { sources, limit: topK, ...(options.kind ? { kinds: [options.kind] } : {}) });
    const semantic = await memory.semantic(query, { sources, limit: topK }).catch(() => []);
    // Weighted as the context weighs them for this embedder (a words-only one counts less).
    const tuning = { ...defaultTuning, ...tuningForEmbedder(memory.embedder()) };
    const fused = reciprocalRankFusion([lexical, semantic], tuning.rrfK, [tuning.lexicalWeight, tuning.semanticWeight]);
    const byId = new Map(memory.get([...fused.keys()]).map((r) => [r.id, r]));
    return [...fused.entries()]
      .sort((a, b) => b[1] - a[1])
      .flatMap(([id, score]) => {
        const record = byId.get(id);
        return record && (!options.kind || record.kind === options.kind) ? [{ ...record, score }] : [];
      })
      .slice(0, options.limit);
  }

  const capped = (llm: LlmPort, profile: AgentProfile) =>
    deps.quota
      ? withQuota(llm, deps.quota, {
          agent: capsOf(limitsOf(profile.runtime.limits)),
          ...(profile.projectQuota ? { project: profile.projectQuota } : {}),
        })
      : llm;

  async function compile(input: TurnInput, background?: (work: Promise<unknown>) => void) {
    const { profile } = input;
    const limits = limitsOf(profile.runtime.limits);
    const llm =
      profile.model.provider === "offline"
        ? undefined
        : capped(
            llmForProfile(profile, env, { timeoutMs: limits.modelTimeoutMs }, await deps.screens.projectModel(profile)),
            profile,
          );
    // The memory policy (core/run knobs): `none` keeps only the request, `window` the recent messages without a summary.
    const policy = profile.runtime.memory?.policy ?? "summary";
    const ttlMs = profile.runtime.memory?.ttlMs;
    return turns.compile({
      sessionId: input.sessionId,
      systemPrompt: profile.systemPrompt,
      query: input.query,
      sources: policy === "none" ? [] : sourcesFor(profile),
      recencyWindow: policy === "none" ? 0 : Math.min(input.maxHistory ?? limits.maxHistory, limits.maxHistory),
      ...(policy === "summary" ? {} : { keepSummary: false }),
      ...(ttlMs ? { memoryNotBefore: clock.now() - ttlMs } : {}),
      ...(input.excludeRunId ? { excludeRunId: input.excludeRunId } : {}),
      ...(input.maxTokens ? { maxTokens: input.maxTokens } : {}),
      ...(profile.model.maxTokens ? { reserveForReply: profile.model.maxTokens } : {}),
      ...(input.k ? { tuning: itemsTuning(input.k) } : {}),
      ...(llm ? { summarize: makeLlmSummarizer({ llm, model: profile.model.name }) } : {}),
      ...(background ? { background } : {}),
      screen: deps.screens.screenFor(profile),
    });
  }

  /**
   * Deletes the memories older than the agent's memory time to live (`runtime.memory.ttlMs`), from
   * the idle alarm; session summaries are kept (they hold the place of folded turns, not a memory).
   */
  async function expire(profile: AgentProfile | undefined): Promise<number> {
    const ttlMs = profile?.runtime.memory?.ttlMs;
    if (!ttlMs) return 0;
    const cutoff = clock.now() - ttlMs;
    const old: string[] = [];
    for (const record of memory.each()) if (record.createdAt < cutoff && record.kind !== "summary") old.push(record.id);
    return old.length ? memory.remove(old) : 0;
  }

  /** The batched extraction with the agent's model; never throws (it runs after the reply). */
  /** One model call over the waiting exchanges; every memory it proposes passes the gates on memory writes. */
  async function extractPending(profile: AgentProfile): Promise<unknown> {
    try {
      const llm =
        profile.model.provider === "offline"
          ? undefined
          : {
              port: capped(llmForProfile(profile, env, {}, await deps.screens.projectModel(profile)), profile),
              model: profile.model.name,
            };
      return await lifecycle.extractPending(llm, deps.screens.screenFor(profile));
    } catch (error) {
      console.warn("batched memory extraction failed", error);
      return undefined;
    }
  }

  // Whether this instance has made sure one idle alarm exists. A turn used to cancel and re-create the
  // alarm (a dozen SQLite statements of the SDK's job table on every turn); now the alarm stays put and,
  // when it fires before the agent has been idle for `idleSeconds`, moves itself to the right time.
  let idleArmed = false;
  async function armIdle(): Promise<void> {
    if (idleArmed) return;
    const armed = deps.host.alarms.armed("onMemoryIdle");
    for (const s of armed.slice(1)) await deps.host.alarms.cancel(s.id);
    if (armed.length === 0) await deps.host.alarms.at(idleSeconds, "onMemoryIdle");
    idleArmed = true;
  }

  /** Exchanges waiting for extraction first (one call), then consolidation. */
  async function upkeep(profile: AgentProfile | undefined) {
    await expire(profile);
    if (profile && lifecycle.pendingCount() > 0) await extractPending(profile);
    return lifecycle.consolidate();
  }

  /** Seconds until the agent will have been idle for `idleSeconds`; 0 when it already has. */
  function idleRemaining(): number {
    const last = deps.messages.lastAt();
    if (last === undefined) return 0;
    return Math.max(0, Math.ceil((last + idleSeconds * 1000 - clock.now()) / 1000));
  }

  async function store(input: {
    text: string;
    kind: MemoryKind;
    importance?: number;
    provenance: string;
    entities?: string[];
    occurredAt?: number;
  }) {
    const { records, superseded, warnings } = await memory.insert([{ ...input }]); // ungated: the memory.store tool's text passed the run's gates (sink tool-output); the API's is a person's
    return { record: records[0]!, superseded, warnings };
  }

  return {
    sourcesFor,
    search,

    /** The memory tools and the context tools (choosing sources by goal, within the grants). */
    tools(profile: AgentProfile): ToolSource {
      const memoryOnes = memoryTools({
        store: (input) => store({ ...input, provenance: "tool:memory.store" }),
        search: (query, limit) => search(query, { limit }),
        forget: (id) => memory.remove([id]),
      });
      const ownDocs = () => sourcesFor(profile).filter((s) => s !== ownSource && !s.includes("/"));
      const contextOnes = contextTools({
        sources: () => usableSources(profile),
        ownSources: ownDocs,
        searchOwn: (source, query, limit) => search(query, { limit, sources: [source] }),
        searchForeign: async (owner, source, query, limit) =>
          (await foreign(owner, source, query, limit)).items.slice(0, limit),
        readForeign: async (owner, source, limit) =>
          unwrap(await ownerStub(owner).readShared({ source, limit, requester: self() })),
      });
      // Only an agent with sources to choose from is shown them (its script's sources, or a connection that may
      // grant some): every other agent's model call stays as it was, two tool specs lighter.
      const mayChoose =
        (scriptOf(profile).contextSources?.length ?? 0) > 0 ||
        profile.connections.length > 0 ||
        (profile.askedBy?.length ?? 0) > 0;
      if (!mayChoose) return memoryOnes;
      return {
        specs: [...memoryOnes.specs, ...contextOnes.specs],
        implementations: { ...memoryOnes.implementations, ...contextOnes.implementations },
      };
    },

    /** The compiled context of a new turn (system prompt, memory, summary, recent history). */
    async contextFor(input: TurnInput) {
      const turn = await compile(input, deps.host.background);
      return {
        context: turn.context,
        refused: turn.refused,
        usedIds: turn.compiled.items
          .filter((i) => i.included && i.origin === "retrieved" && !i.id.includes("/"))
          .map((i) => i.id),
      };
    },

    /**
     * After a completed turn: mark what was used, extract memories, re-arm the idle consolidation. Never
     * throws. Offline, the pattern extractor runs at once (no model call); with a model the exchange
     * waits for a batch of `extractionBatch` (one call for all of them) or for the idle alarm. Either
     * way each memory passes the output gates on memory writes (`screenFor`, a refusal traced in the run
     * of the exchange it came from) and is dated by that exchange.
     */
    async afterTurn(input: {
      profile: AgentProfile;
      runId: string;
      user: string;
      reply?: string | null;
      usedIds: string[];
      saidAt?: number;
    }) {
      try {
        if (input.usedIds.length) memory.touch(input.usedIds, clock.now());
        if (input.reply) {
          const exchange = {
            runId: input.runId,
            user: input.user,
            assistant: input.reply,
            saidAt: input.saidAt ?? clock.now(),
          };
          if (input.profile.model.provider === "offline")
            await lifecycle.extract({ ...exchange, screen: deps.screens.screenFor(input.profile) });
          else if (lifecycle.enqueue(exchange)) deps.host.background(extractPending(input.profile));
        }
        await armIdle();
      } catch (error) {
        console.warn("memory after turn failed", error);
      }
    },

    /** Exactly what the model would see for `query`: messages, every candidate with its scores, tokens. */
    async preview(input: TurnInput) {
      const turn = await compile(input);
      const { compiled } = turn;
      return {
        sessionId: input.sessionId,
        query: input.query,
        sources: sourcesFor(input.profile),
        messages: compiled.messages,
        items: compiled.items,
        tokens: compiled.tokens,
        summary: turn.summary || null,
        folded: turn.folded,
        warnings: compiled.warnings,
        refused: turn.refused,
        embedder: { model: portsNow().embed.model, dimensions: portsNow().embed.dimensions, index: portsNow().backend },
      };
    },

    async list(options: { q?: string; kind?: MemoryKind; limit: number }) {
      if (options.q?.trim()) return { memories: await search(options.q, options) };
      return { memories: memory.list(options) };
    },

    get(id: string): MemoryRecord {
      const record = memory.get([id], { includeSuperseded: true })[0];
      if (!record) throw new PantheonError("not_found", `memory '${id}' does not exist`, { details: { memory: id } });
      return record;
    },

    async create(input: {
      text: string;
      kind: MemoryKind;
      importance?: number;
      entities?: string[];
      occurredAt?: number;
    }) {
      const result = await store({ ...input, provenance: "api" });
      return { ...result.record, superseded: result.superseded, warnings: result.warnings };
    },

    async remove(id: string): Promise<void> {
      if ((await memory.remove([id])) === 0)
        throw new PantheonError("not_found", `memory '${id}' does not exist`, { details: { memory: id } });
    },

    /** The agent's own context sources (memory and its document sources): what an MCP client may read. */
    ownSources(profile: AgentProfile): string[] {
      return sourcesFor(profile).filter((source) => !source.includes("/"));
    },

    /** One of the agent's own sources, newest first: its live items, at most `limit`. */
    readSource(profile: AgentProfile, source: string, limit: number): MemoryRecord[] {
      if (
        !sourcesFor(profile)
          .filter((s) => !s.includes("/"))
          .includes(source)
      ) {
        throw new PantheonError("not_found", `agent '${profile.name}' has no context source '${source}'`, {
          details: { source },
        });
      }
      return memory.list({ source, limit });
    },

    status: () => memory.status(),
    /** JSONL; `clean` is applied to each record (the agent redacts its secrets there). */
    exportText: (clean?: (record: MemoryRecord) => MemoryRecord) => [...exportLines(memory, clean)].join(""),
    import: (text: string) => importLines(memory, text),
    exists: (id: string) => memory.exists(id),
    reembed: () => memory.reembed(),
    consolidate: () => lifecycle.consolidate(),
    /** The idle alarm: exchanges still waiting are extracted (one call), then memory is consolidated. */
    async onIdle(profile: AgentProfile | undefined) {
      // The fired schedule is gone: the next turn (or the line below) arms a new one.
      idleArmed = false;
      const remaining = idleRemaining();
      if (remaining > 0) {
        idleArmed = true;
        await deps.host.alarms.at(remaining, "onMemoryIdle");
        return null;
      }
      return upkeep(profile);
    },
    /** The idle upkeep now, whether or not the agent is idle (`POST …/memories/consolidate`). */
    upkeep,
    addDocument: (source: string, doc: { title: string; text: string }) => addDocument(memory, source, doc),
    wipe: () => memory.wipe(),

    /** Another agent asks for hits in one of this agent's sources: only when a grant reaches it (sharing.ts). */
    searchShared: sharing.search,
    /** Another agent reads one of this agent's sources: only with a read grant that reaches it. */
    readShared: sharing.read,
    /** The sources this agent grants `requester`. */
    sharedSources: sharing.listFor,
  };
}

export type MemoryFeature = ReturnType<typeof makeMemoryFeature>;
