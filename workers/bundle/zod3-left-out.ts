// Stands in for `zod/v3` and `zod-to-json-schema` in the worker bundle (wrangler.toml [alias]). The
// MCP SDK's server accepts tool schemas written with zod 3 or zod 4 and imports both; its zod 3
// branch (`z3rt.object`, `zodToJsonSchema`) runs only for a zod 3 schema, and Pantheon's MCP servers
// give zod 4 ones (workers/mcp-server.ts) or JSON Schema. Leaving zod 3 out takes ~80 KiB of minified
// code out of the bundle; a zod 3 schema reaching the SDK would fail here, by name.

const leftOut = (name: string) => (): never => {
  throw new Error(`${name} is not in the worker bundle (wrangler.toml [alias]): give the MCP SDK zod 4 schemas`);
};

/** zod 3's `object`, the one name of `zod/v3` the MCP SDK calls. */
export const object = leftOut("zod/v3");
/** zod-to-json-schema's converter (zod 3 schemas only). */
export const zodToJsonSchema = leftOut("zod-to-json-schema");
