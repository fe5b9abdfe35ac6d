// Stands in for `zod` in the worker bundle (wrangler.toml [alias]: the exact specifier "zod", so
// Pantheon's `import { z } from "zod"` and the agents SDK's). zod's classic entry re-exports every
// one of its ~50 locales (`z.locales`, `z.core.locales`), and esbuild cannot leave them out: `z` is a
// namespace object, so everything it names is evaluated when zod is — the largest part of zod's
// startup CPU, paid by every isolate for error messages in languages Pantheon never sets. This is
// the same `z` (zod's own modules, by path, so one copy of each class) without the locales; English,
// the default, is registered by zod itself when the first schema is built. Tests run the real
// package; test/startup/zod-without-locales.test.ts checks that both name the same exports.
import * as z from "./zod-classic-without-locales";

export * from "./zod-classic-without-locales";
export { z, z as default };
