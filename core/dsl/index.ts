export { compileScript, type CompileOptions } from "./compile";
export { compileScriptJson } from "./json";
export type { CompileResult } from "./finish";
export type { ScriptToolForm } from "./compiler-state";
export { printScript } from "./print";
export { inlineToolPaths } from "./inline-tools";
export {
  evaluateExpr,
  missingInputKeys,
  resolvePlan,
  resolveArgs,
  type ExprScope,
  type Value,
  type ResolvedAction,
} from "./evaluate";
export { ScriptError, isScriptError, type ScriptIssue, type ScriptWarning } from "./issues";
export { readForms, defaultReadLimits, type Node, type Pos, type ReadLimits } from "./reader";
export { parseDuration, cronProblem } from "./time";
export {
  actorScriptSchema,
  behaviorSchema,
  talentSchema,
  triggerSchema,
  planSchema,
  actionSchema,
  exprSchema,
  scriptLimitsSchema,
  behaviorModes,
  policies,
  messageRoles,
  namePattern,
  type ActorScript,
  type Talent,
  type Behavior,
  type Trigger,
  type Plan,
  type Action,
  type Expr,
  type Scope,
} from "./script-schema";
