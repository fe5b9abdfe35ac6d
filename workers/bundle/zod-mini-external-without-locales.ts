// zod/v4/mini/external.js without `locales`. Why: ./zod-without-locales.ts.
export * as core from "./zod-core-without-locales";
export * from "../../node_modules/zod/v4/mini/parse.js";
export * from "../../node_modules/zod/v4/mini/schemas.js";
export * from "../../node_modules/zod/v4/mini/checks.js";
export { deepPartial } from "../../node_modules/zod/v4/mini/deep-partial.js";
export { input, output } from "../../node_modules/zod/v4/mini/in-out.js";
export {
  globalRegistry,
  registry,
  config,
  memoizer,
  $output,
  $input,
  $brand,
  clone,
  regexes,
  treeifyError,
  prettifyError,
  formatError,
  flattenError,
  TimePrecision,
  util,
  NEVER,
  INVALID,
  toZod,
  compile,
  withParser,
  ZodCompileAsyncError,
  ZodCompileUnsupportedError,
  getDiscriminatedOption,
} from "./zod-core-without-locales";
export { toJSONSchema } from "../../node_modules/zod/v4/core/json-schema-processors.js";
export * as iso from "../../node_modules/zod/v4/mini/iso.js";
export {
  ZodMiniISODateTime,
  ZodMiniISODate,
  ZodMiniISOTime,
  ZodMiniISODuration,
} from "../../node_modules/zod/v4/mini/iso.js";
export * as coerce from "../../node_modules/zod/v4/mini/coerce.js";
