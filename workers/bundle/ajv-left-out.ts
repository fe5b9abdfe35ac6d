// Stands in for `ajv` and `ajv-formats` in the worker bundle (wrangler.toml [alias]). The MCP SDK's
// Server imports its Ajv validator as the default for `jsonSchemaValidator`, but both of Pantheon's
// MCP servers (workers/mcp-server.ts, workers/protocols/agent-mcp-server.ts) pass the Cloudflare
// Workers validator (@cfworker/json-schema), so Ajv never runs; leaving it out takes ~140 KiB of
// minified code out of the bundle. A server built without a validator would fail here, by name.

/** Ajv's default export (the class) and ajv-formats' (a function taking an Ajv): neither may be used. */
export default class AjvLeftOut {
  constructor() {
    throw new Error(
      "ajv is not in the worker bundle (wrangler.toml [alias]): give the MCP SDK's Server `jsonSchemaValidator: new CfWorkerJsonSchemaValidator()`",
    );
  }
}
