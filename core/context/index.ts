/**
 * The context engine: each turn compiles the model's messages from the system prompt, retrieved
 * memory (lexical + semantic, fused, de-duplicated, one graph hop), the rolling summary and the recent
 * window, inside a token budget. Plus the memory lifecycle around it: extraction, folding, consolidation.
 */
export type {
  CompileInput,
  CompiledContext,
  ContextBudget,
  ContextItem,
  ContextReason,
  ContextReasonCode,
  ContextScores,
  ContextStore,
  ContextTuning,
  GraphEdge,
  MemoryItem,
  MemoryKind,
  RankWeights,
  RerankPort,
  RetrieveOptions,
  ScoredId,
  SlashDates,
  Tokenizer,
  Triple,
} from "./types";
export { memoryKinds } from "./types";
export {
  defaultTuning,
  itemsTuning,
  makeContextEngine,
  maxItemsLimit,
  memoryHeader,
  summaryHeader,
  tuningForEmbedder,
  wordsOnlyFusion,
} from "./engine";
export type { ContextEngine, ContextEngineDeps } from "./engine";
export { memoryLine, retrieveCandidates } from "./retrieve";
export type { RetrieveInput } from "./retrieve";
export {
  cachedWordOverlap,
  finalScore,
  firstByScore,
  maximalMarginalRelevance,
  reciprocalRankFusion,
  recencyDecay,
  wordOverlap,
  words,
} from "./rank";
export type { MmrCandidate, MmrResult } from "./rank";
export {
  countMessageTokens,
  countTokens,
  cutToFit,
  estimateTokenizer,
  makeEstimateTokenizer,
  truncationMarker,
} from "./tokens";
export { extractiveSummary, foldIntoSummary, makeLlmSummarizer, planFold, summaryPrompt } from "./summary";
export type { FoldPlan, FoldResult, Summarize, SummarizeRequest } from "./summary";
export { entitiesOf, extractMemories, parseExtraction, parseTriple, proposedMemorySchema } from "./extract";
export type { ProposedMemory } from "./extract";
export { planConsolidation } from "./consolidate";
export type { ConsolidationOptions, ConsolidationPlan, MergePlan, SupersedePlan } from "./consolidate";
export { ftsQuery, ftsTerms } from "./fts";
export type { FtsTerm } from "./fts";
export { happenedAt, occurredAtOf, occurredAtSchema, periodMatch, temporalCue } from "./time";
export type { TemporalCue } from "./time";
export { decideGrant, grantAccesses, grantSource, isConnected, normalizeGrants } from "./grants";
export type { GrantAccess, GrantDecision, GrantOwner, GrantSpec, SourceGrant } from "./grants";
