import type { Node } from "acorn";
import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { secretNamePattern } from "../tools/secrets";
import { toolNamePattern } from "../tools/tool-spec";
import { scriptInvalid } from "./invalid";

/** What a script declares about itself in `export const tool = { … }`. */
export const scriptDeclarationSchema = lazySchema(() =>
  z.strictObject({
    name: z
      .string()
      .regex(toolNamePattern, "lowercase words joined by '.', '_' or '-', starting with a letter")
      .max(64),
    description: z.string().min(1).max(2000),
    /** JSON Schema of the input object: what the model is shown and what a call is checked against. */
    input: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    /** Hosts the script's `fetch` may reach (the agent's outbound guard applies too); none = no network. */
    hosts: z.array(z.string().min(1).max(253)).max(20).default([]),
    /** Project secrets the script reads with `ctx.secret(name)`; no other secret reaches it. */
    secrets: z.array(z.string().regex(secretNamePattern, "UPPER_SNAKE_CASE")).max(20).default([]),
    /** Other tools of the agent the script calls with `ctx.tool(name, args)`; each passes the agent's gates. */
    tools: z.array(z.string().regex(toolNamePattern)).max(20).default([]),
    /** A person approves each call before it runs. */
    requiresApproval: z.boolean().optional(),
    /** Safe to repeat after an interruption. */
    idempotent: z.boolean().optional(),
  }),
);

export type ScriptDeclaration = z.infer<typeof scriptDeclarationSchema>;

type Literalish = Node & {
  type: string;
  value?: unknown;
  elements?: (Literalish | null)[];
  properties?: (Literalish & { key: Literalish & { name?: string }; value: Literalish; computed: boolean })[];
  expressions?: unknown[];
  quasis?: { value: { cooked: string } }[];
  argument?: Literalish;
  operator?: string;
};

/** A literal written in the source, read without running it: objects, arrays, strings, numbers, booleans, null. */
function literalOf(node: Literalish): unknown {
  switch (node.type) {
    case "Literal":
      return node.value;
    case "TemplateLiteral":
      if (node.expressions?.length) break;
      return node.quasis?.map((q) => q.value.cooked).join("");
    case "UnaryExpression":
      if (node.operator === "-" && node.argument?.type === "Literal" && typeof node.argument.value === "number")
        return -node.argument.value;
      break;
    case "ArrayExpression":
      return (node.elements ?? []).map((element) => (element ? literalOf(element) : null));
    case "ObjectExpression": {
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const property of node.properties ?? []) {
        if (property.type !== "Property" || property.computed) break;
        const key = property.key.type === "Identifier" ? property.key.name : property.key.value;
        if (typeof key !== "string" || key === "__proto__")
          throw scriptInvalid(`'tool' may not name the key ${String(key)}`, property.loc?.start.line);
        out[key] = literalOf(property.value);
      }
      if (Object.keys(out).length === (node.properties ?? []).length) return { ...out };
      break;
    }
  }
  throw scriptInvalid(
    "'tool' is written as plain data: objects, arrays, strings, numbers, booleans",
    node.loc?.start.line,
  );
}

/** Reads `export const tool = { … }` from a parsed module, checked against the declaration's schema. */
export function readDeclaration(ast: Node): ScriptDeclaration {
  const body = (
    ast as Node & {
      body: (Node & {
        declaration?: { type: string; declarations?: { id: { name?: string }; init: Literalish | null }[] };
      })[];
    }
  ).body;
  for (const statement of body) {
    if (statement.type !== "ExportNamedDeclaration" || statement.declaration?.type !== "VariableDeclaration") continue;
    for (const declarator of statement.declaration.declarations ?? []) {
      if (declarator.id.name !== "tool" || !declarator.init) continue;
      const parsed = scriptDeclarationSchema.safeParse(literalOf(declarator.init));
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0];
      const path = ["tool", ...(issue?.path ?? [])].join(".");
      throw scriptInvalid(`${path}: ${issue?.message ?? "not valid"}`, declarator.init.loc?.start.line);
    }
  }
  throw scriptInvalid("a script declares itself: export const tool = { name, description, input }");
}
