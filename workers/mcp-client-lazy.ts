// Stands in for `@modelcontextprotocol/client` in the worker bundle (wrangler.toml [alias]). The
// agents SDK imports four classes and one function from it at the top of its MCP client; importing
// the package builds ~200 MCP wire schemas with zod at module scope (its `core` chunk), and that
// was the largest single part of Pantheon's startup CPU, paid by every isolate although only agents
// that connect to MCP servers use it. Each name here is the package's own export, reached on first
// use: `new`, a call, `instanceof` and property reads all go to the real one.
import type * as McpClient from "./mcp-client-used";

// esbuild turns a `require` of a bundled ES module into a synchronous call of its (lazy)
// initialiser: the package evaluates here, the first time a name below is used.
declare const require: (path: string) => unknown;
let sdk: typeof McpClient | undefined;
const real = (): typeof McpClient => (sdk ??= require("./mcp-client-used") as typeof McpClient);

type Callable = (...args: unknown[]) => unknown;
type Constructible = new (...args: unknown[]) => object;

/** A function or class that is `pick()`'s value for every use but being imported. */
function onFirstUse<T extends object>(pick: () => T): T {
  const stand: T = new Proxy((() => {}) as unknown as T, {
    get: (_, key) => Reflect.get(pick(), key),
    has: (_, key) => Reflect.has(pick(), key),
    apply: (_, self, args): unknown => Reflect.apply(pick() as Callable, self, args),
    // `new Stand()` builds the real class's object; a subclass of the stand (none today) keeps its own.
    construct: (_, args, newTarget): object => Reflect.construct(pick() as Constructible, args, newTarget === stand ? (pick() as Constructible) : newTarget),
    getPrototypeOf: () => Reflect.getPrototypeOf(pick()),
  });
  return stand;
}

export const Client = onFirstUse(() => real().Client);
export const SSEClientTransport = onFirstUse(() => real().SSEClientTransport);
export const StreamableHTTPClientTransport = onFirstUse(() => real().StreamableHTTPClientTransport);
export const SdkHttpError = onFirstUse(() => real().SdkHttpError);
export const validateClientMetadataUrl = onFirstUse(() => real().validateClientMetadataUrl);
