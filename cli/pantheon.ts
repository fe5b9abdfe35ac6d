#!/usr/bin/env node
// `pantheon`: the operator's command line for a Pantheon server. TypeScript run by Node itself
// (type stripping, Node >= 22.18; `npm start` and `npm test` bring 22.23): no build step.
//
// The CLI's own files import each other with their `.ts` names, which Node resolves as they are.
// The repository's shared code (core/, which `script check` compiles with) imports without
// extensions, as bundlers do; this resolve hook tries `<name>.ts` and `<name>/index.ts` for a
// relative import from a .ts file that Node cannot find as written.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const code = (error as { code?: string }).code;
      const retry =
        (code === "ERR_MODULE_NOT_FOUND" || code === "ERR_UNSUPPORTED_DIR_IMPORT") &&
        /^\.\.?\//.test(specifier) &&
        Boolean(context.parentURL?.endsWith(".ts"));
      if (!retry) throw error;
      for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
        try {
          return nextResolve(candidate, context);
        } catch {}
      }
      throw error;
    }
  },
});

const { main } = await import("./main.ts");
process.exitCode = await main(process.argv.slice(2));
