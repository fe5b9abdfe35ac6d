// Stands in for `@modelcontextprotocol/client` in the worker bundle (wrangler.toml [alias]). The
// agents SDK imports four classes and one function from it at the top of its MCP client; importing
// the package builds ~200 MCP wire schemas with zod at module scope (its `core` chunk), and that
// was the largest single part of Pantheon's startup CPU, paid by every isolate although only agents
// that connect to MCP servers use it. Each name here is the package's own export, reached on first
// use: `new`, a call, `instanceof` and property reads all go to the real one.
import type * as McpClient from "./mcp-client-used";
import { onFirstUse } from "./bundle/on-first-use";

// esbuild turns a `require` of a bundled ES module into a synchronous call of its (lazy)
// initialiser: the package evaluates here, the first time a name below is used.
declare const require: (path: string) => unknown;
let sdk: typeof McpClient | undefined;
const real = (): typeof McpClient => (sdk ??= require("./mcp-client-used") as typeof McpClient);

export const Client = onFirstUse(() => real().Client);
export const SSEClientTransport = onFirstUse(() => real().SSEClientTransport);
export const StreamableHTTPClientTransport = onFirstUse(() => real().StreamableHTTPClientTransport);
export const SdkHttpError = onFirstUse(() => real().SdkHttpError);
export const validateClientMetadataUrl = onFirstUse(() => real().validateClientMetadataUrl);
/** The OAuth flow's entry point: durable-objects/agent/mcp/client.ts refreshes a token with it before it expires. */
export const auth = onFirstUse(() => real().auth);
