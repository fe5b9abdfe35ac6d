export { toolNamePattern, toolRuntimes, toolSpecSchema, type ToolRuntime, type ToolSpec } from "./tool-spec";
export { decodeToolName, encodeToolName, makeToolNameCodec, ToolNameClashError, type ToolNameCodec } from "./names";
export {
  formatLosses,
  fromAnthropicTool,
  fromMcpTool,
  fromOpenAITool,
  pantheonMetaKey,
  toAnthropicTool,
  toFormat,
  toMcpTool,
  toModelTool,
  toOpenAITool,
  type AnthropicTool,
  type McpToolAnnotations,
  type McpToolManifest,
  type OpenAIFunctionTool,
  type ToolFormat,
} from "./convert";
export { exportTools, importTools, toolFormats, type ImportedTool, type ToolIssue } from "./interop";
export { describeIssues, validateArguments, type ArgumentCheck } from "./validate";
export { truncateToBytes, truncationMarker, type Truncated } from "./truncate";
export {
  declaredToolSecrets,
  isReservedSecret,
  redactDeep,
  redactedMark,
  redactSecrets,
  secretNamePattern,
  toolSecretRefusal,
  type SecretRef,
  type SecretValues,
} from "./secrets";
export {
  makeToolRegistry,
  toolsOf,
  type BuiltinTool,
  type InvokeOptions,
  type ToolCallContext,
  type ToolError,
  type ToolErrorCode,
  type ToolImplementation,
  type ToolOutcome,
  type ToolRegistry,
  type ToolRegistryOptions,
} from "./registry";
export {
  checkOutboundUrl,
  forbiddenNameOf,
  forbiddenRangeOf,
  hostMatches,
  isIpLiteral,
  type OutboundOptions,
  type UrlCheck,
} from "./host-policy";
export {
  makeGuardedFetch,
  outboundSettingsFrom,
  privateHostsFrom,
  OutboundRefused,
  type FetchFn,
  type OutboundPolicy,
  type OutboundSettings,
} from "./outbound";
export { agentOfTool, askPrefix, makeAgentToolSpec } from "./agent-tool";
export {
  builtinGroupGrants,
  builtinSpec,
  builtinSpecsOf,
  builtinToolGroups,
  builtinToolNames,
  type BuiltinToolGroup,
} from "./builtins/catalog";
export { makeClockTool } from "./builtins/clock";
export { HttpFetchRefused, makeHttpFetchTool, type FetchLike, type HttpFetchToolOptions } from "./builtins/http-fetch";
export { HttpToolError, makeHttpTool, type HttpToolOptions } from "./builtins/http-tool";
