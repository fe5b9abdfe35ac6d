// The API contract between the worker and the PWA, checked by the compiler: `npm run typecheck`
// compiles this file twice, with the worker's tsconfig.json and with pwa/tsconfig.json (where the
// worker's files are checked against the DOM's lib and pwa/worker-names.d.ts). Nothing here runs.
//
// A line stops compiling when the PWA's view of the API is no longer the server's: a type in
// pwa/src copied by hand instead of read from the routes, a server type that changed under the PWA,
// or a route whose input or output reaches clients as `any` (a cast, or a type TypeScript gave up on).
import type { InferRequestType, InferResponseType, hc } from "hono/client";
import type { ExtractSchema } from "hono/types";
import type { JSONParsed } from "hono/utils/types";
import type * as Pwa from "../../pwa/src/api";
import type * as Live from "../../durable-objects/agent/chat/live";
import type { StoredMessage } from "../../durable-objects/agent/chat/messages";
import type { RunSummary, TraceStep } from "../../durable-objects/agent/runs/store";
import type { SessionView } from "../../durable-objects/agent/chat/sessions";
import type { ScheduleView } from "../../durable-objects/agent/behaviors/behaviors";
import type { BusCounts, BusHop } from "../../durable-objects/registry/bus-log";
import type { ApiRoutes } from "../../workers/api";

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
/** Compiles only for `never`; otherwise the error names what is there. */
type None<T extends never> = T;

type IsAny<T> = 0 extends 1 & T ? true : false;
/** True when `any` is anywhere in T, looked for 8 levels deep (JSON values are recursive). */
type HasAny<T, Depth extends unknown[] = []> =
  IsAny<T> extends true
    ? true
    : Depth["length"] extends 8
      ? false
      : T extends readonly (infer E)[]
        ? HasAny<E, [...Depth, 0]>
        : T extends object
          ? true extends { [K in keyof T]-?: HasAny<T[K], [...Depth, 0]> }[keyof T]
            ? true
            : false
          : false;

type Schema = ExtractSchema<ApiRoutes>;
/** Every route's `METHOD path` whose input or output contains `any`; `never` when there is none. */
type RoutesWithAny = {
  [Path in keyof Schema & string]: {
    [Method in keyof Schema[Path] & string]: Schema[Path][Method] extends { input: infer I; output: infer O }
      ? true extends HasAny<I> | HasAny<O>
        ? `${Method} ${Path}`
        : never
      : never;
  }[keyof Schema[Path] & string];
}[keyof Schema & string];

type Client = ReturnType<typeof hc<ApiRoutes>>;
type AgentRoutes = Client["api"]["agents"][":name"];
/** What each of the PWA client's calls resolves to. */
type PwaAnswers = { [K in keyof Pwa.Api]: Awaited<ReturnType<Pwa.Api[K]>> };

export type Contract = [
  None<RoutesWithAny>,
  None<{ [K in keyof PwaAnswers]: HasAny<PwaAnswers[K]> extends true ? K : never }[keyof PwaAnswers]>,
  // The PWA's names are the routes' answers (hono's own reading of the route types)...
  Expect<Equal<Pwa.Agent, InferResponseType<AgentRoutes["$get"]>>>,
  Expect<Equal<{ agents: Pwa.Agent[] }, InferResponseType<Client["api"]["agents"]["$get"]>>>,
  Expect<Equal<Pwa.RunDetail, InferResponseType<AgentRoutes["runs"][":id"]["$get"]>>>,
  Expect<Equal<Pwa.ContextResult, InferResponseType<AgentRoutes["context"]["$get"]>>>,
  Expect<Equal<Pwa.ScriptInfo, InferResponseType<AgentRoutes["script"]["$get"]>>>,
  Expect<Equal<Pwa.Conversation, InferResponseType<Client["api"]["conversations"][":id"]["$get"]>>>,
  Expect<Equal<Pwa.ToolInvokeResult, InferResponseType<AgentRoutes["tools"][":tool"]["invoke"]["$post"]>>>,
  Expect<Equal<{ approvals: Pwa.Approval[] }, InferResponseType<Client["api"]["approvals"]["$get"]>>>,
  Expect<Equal<Pwa.Schedule, InferResponseType<AgentRoutes["schedules"][":behavior"]["pause"]["$post"]>>>,
  Expect<Equal<Pwa.FeatureSummary, InferResponseType<Client["api"]["features"][":feature"]["$get"]>>>,
  Expect<Equal<Pwa.Plan, InferResponseType<Client["api"]["features"][":feature"]["plan"]["$get"]>>>,
  Expect<
    Equal<{ tasks: Pwa.FeatureTask[] }, InferResponseType<Client["api"]["features"][":feature"]["tasks"]["$get"]>>
  >,
  Expect<Equal<Pwa.FeatureReport, InferResponseType<Client["api"]["features"][":feature"]["report"]["$get"]>>>,
  // ...and those are the server's own types, as JSON.
  Expect<Equal<Pwa.StoredMessage, JSONParsed<StoredMessage>>>,
  Expect<Equal<Pwa.SendResult["reply"], JSONParsed<StoredMessage> | null>>,
  Expect<Equal<Pwa.RunSummary, JSONParsed<RunSummary>>>,
  Expect<Equal<Pwa.TraceStep, JSONParsed<TraceStep>>>,
  Expect<Equal<Pwa.Session, JSONParsed<SessionView>>>,
  Expect<Equal<Pwa.Schedule, JSONParsed<ScheduleView>>>,
  Expect<Equal<Pwa.BusCounts, JSONParsed<BusCounts>>>,
  Expect<Equal<Pwa.BusHop, JSONParsed<BusHop>>>,
  Expect<Equal<Pwa.RunEvent, JSONParsed<Live.RunEvent>>>,
  Expect<Equal<Pwa.LiveState, Live.LiveState>>,
  // What the PWA sends is what the routes accept.
  Expect<
    Equal<Parameters<Pwa.Api["decide"]>[2], InferRequestType<AgentRoutes["runs"][":id"]["approval"]["$post"]>["json"]>
  >,
  Expect<
    Equal<
      Parameters<Pwa.Api["commentPlan"]>[1],
      InferRequestType<Client["api"]["features"][":feature"]["plan"]["comments"]["$post"]>["json"]
    >
  >,
];
