// zod/v4-mini (zod/v4/mini/external.js) without `locales`, its `core` namespace without them either.
// The MCP SDK's server imports it. Why: ./zod-without-locales.ts.
import * as z from "./zod-mini-external-without-locales";

export * from "./zod-mini-external-without-locales";
export { z };
