// The names of `@modelcontextprotocol/client` the agents SDK uses (and `auth`, which Pantheon's MCP token refresh calls), from the package itself (by path:
// the package name is aliased to mcp-client-lazy.ts in the bundle). Only mcp-client-lazy.ts loads
// this, on first use; re-exporting just these keeps the rest of the package out of the bundle.
export {
  auth,
  Client,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  validateClientMetadataUrl,
} from "../node_modules/@modelcontextprotocol/client/dist/index.mjs";
