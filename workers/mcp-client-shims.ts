// Stands in for `@modelcontextprotocol/client/_shims` in the worker bundle (wrangler.toml [alias]).
// The package's own workerd shim exports the same two names and also calls `preloadSchemas()` at
// module scope, building every MCP wire schema (both protocol eras) while the isolate starts: about
// a tenth of Pantheon's startup CPU, paid by every isolate although the agents SDK's MCP client (the
// only importer) runs only for agents that connect to MCP servers. Without the preload each schema
// is built on its first use, behind the SDK's own memos (the default the SDK keeps everywhere else).
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";

/** In workerd a `TypeError` from `fetch` is a network or configuration error, never CORS. */
export const CORS_IS_POSSIBLE = false;
