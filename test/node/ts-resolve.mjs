// Lets a check (or a browser spec) import core/ TypeScript as the CLI does: Node strips the types,
// and this resolve hook tries `<name>.ts` and `<name>/index.ts` for the extensionless relative
// imports core/ is written with (as bundlers resolve them; cli/pantheon.ts registers the same).
// Import it before the first dynamic import of a .ts file.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (!/^\.\.?\//.test(specifier) || !context.parentURL?.endsWith(".ts")) throw error;
      for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
        try {
          return nextResolve(candidate, context);
        } catch {}
      }
      throw error;
    }
  },
});
