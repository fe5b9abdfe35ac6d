// Type-checking the PWA (and the CLI, cli/tsconfig.json) also checks the worker files its API types
// come from (`import type` from workers/api and durable-objects/agent/live.ts), under the DOM's lib. The Workers runtime's own
// declarations (worker-configuration.d.ts) cannot join this program: they declare Request,
// Response, WebSocket… again, differently. So the few Workers-only names those files use are
// declared here, opaque. No response type is built from them: test/contract/api-types.ts fails
// when a route's output reaches the PWA as `any`, and tsconfig.json checks the worker against the
// real declarations.

interface Env {
  // The Durable Object bindings carry their classes: durable-objects/stubs.ts types each stub from them.
  readonly AGENT_DO: DurableObjectNamespace<import("../durable-objects/agent/agent-do").AgentDO>;
  readonly REGISTRY: DurableObjectNamespace<import("../durable-objects/registry/registry-do").RegistryDO>;
  readonly FEATURE_DO: DurableObjectNamespace<import("../durable-objects/feature/feature-do").FeatureDO>;
  // Two of the vars, named so the worker's narrow views of `Env` (the tool secrets, the memory's embedder
  // settings) share a property with it: TypeScript refuses a type with none in common with an all-optional one.
  readonly PANTHEON_TOOL_SECRETS?: string;
  readonly EMBEDDINGS_BASE_URL?: string;
  // biome-ignore lint/suspicious/noExplicitAny: opaque on purpose (see above)
  readonly [binding: string]: any;
}
type DurableObjectState<Props = unknown> = import("@cloudflare/workers-types/index").DurableObjectState<Props>;
/** Opaque but for the class it serves, which durable-objects/stubs.ts reads (the stub's calls are typed from it). */
interface DurableObjectNamespace<Served = undefined> {
  readonly served?: Served;
  // biome-ignore lint/suspicious/noExplicitAny: opaque on purpose (see above)
  [member: string]: any;
}
/** The image store's bucket (adapters/image-r2), named by the message routes the PWA's types come from. */
type R2Bucket = import("@cloudflare/workers-types/index").R2Bucket;

/** Migrations import their SQL as text (a wrangler module rule). */
declare module "*.sql" {
  const sql: string;
  export default sql;
}

declare module "cloudflare:workers" {
  /** The base class of the Durable Objects (the agents SDK's `Agent` extends it too). */
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
    alarm?(): void | Promise<void>;
  }
  /** An object handed over RPC by reference (the feature repository's API, durable-objects/feature/repo). */
  export abstract class RpcTarget {}
  /** The runtime's tracing (durable-objects/agent/telemetry/platform.ts reads it, guarded). */
  export const tracing: unknown;
}
