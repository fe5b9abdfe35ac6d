import { compileScript, type CompiledScript } from "./compile";
import { isPantheonError } from "../errors";
import { scriptInvalid } from "./invalid";

/** `export const tool` at the start of a line: the source declares itself. */
const selfDeclared = /^\s*export\s+const\s+tool\b/m;

/**
 * A script tool declared by a form of another file (the DSL's `(tool …)`): its code, and the
 * declaration's fields the form gives. The stored source is the code with the declaration written
 * after it as `export const tool = { … }`, so it reads as any script tool file, keeps its lines, and
 * a project file carries it as it carries the others. A source that declares itself takes no fields
 * but the name, which must be its own.
 * @example
 * await scriptFromForm({ name: "num.double", fields: { description: "twice n" }, source: "export default async (i) => i.n * 2;" });
 * // { declaration: { name: "num.double", … }, code, codeId, source: "export default …\nexport const tool = {…};\n" }
 */
export async function scriptFromForm(form: {
  name: string;
  fields: Record<string, unknown>;
  source: string;
}): Promise<CompiledScript & { source: string }> {
  let source = form.source;
  if (selfDeclared.test(source)) {
    const given = Object.keys(form.fields);
    if (given.length)
      throw scriptInvalid(
        `:${given[0]} is given twice: the source declares itself (export const tool = { … }); say it in one place`,
      );
  } else {
    // The code alone first, so a syntax error names the author's line, not the declaration's after it.
    await compileScript(source).catch((error: unknown) => {
      if (isPantheonError(error) && error.details?.line !== undefined) throw error;
    });
    const declaration = { name: form.name, ...form.fields };
    source = `${source.replace(/\s*$/, "")}\nexport const tool = ${JSON.stringify(declaration)};\n`;
  }
  const compiled = await compileScript(source);
  if (compiled.declaration.name !== form.name)
    throw scriptInvalid(`the source declares the name '${compiled.declaration.name}', not '${form.name}'`);
  return { ...compiled, source };
}
