import { PantheonError } from "../errors";
import { hostMatches } from "../tools/host-policy";
import type { Gate, GateDecision } from "./gate";
import type { CustomGateSpec } from "./gate-spec";
import { compileDenyPattern } from "./pattern";
import { ownValue } from "../reserved-names";

const allow: GateDecision = { allow: true };

function appliesTo(pattern: string | undefined, tool: string): boolean {
  if (pattern === undefined) return true;
  return pattern.endsWith("*") ? tool.startsWith(pattern.slice(0, -1)) : tool === pattern;
}

function fieldOf(args: Record<string, unknown>, path: string): unknown {
  let value: unknown = args;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = ownValue(value as Record<string, unknown>, key);
  }
  return value;
}

/**
 * Compiles an operator's gate declaration. Deny patterns run on RE2 (linear time, whatever the
 * pattern or the text); ones it cannot run are refused here, when the gate is compiled, not on
 * the first call (configuration refuses them earlier still).
 * @example
 * makeCustomGate({ name: "no-drop", kind: "deny-pattern", tool: "sql.*", field: "query", pattern: "\\bdrop\\b" });
 */
export function makeCustomGate(spec: CustomGateSpec, priority = 30): Gate {
  const base = { name: spec.name, priority };
  switch (spec.kind) {
    case "deny-pattern": {
      const compiled = compileDenyPattern(spec.pattern);
      if (!compiled.ok)
        throw new PantheonError("script_invalid", `gate '${spec.name}': ${compiled.reason}`, {
          details: { gate: spec.name },
        });
      const pattern = compiled.matcher;
      return {
        ...base,
        check: ({ call }) => {
          if (!appliesTo(spec.tool, call.name)) return allow;
          const value = spec.field === undefined ? call.arguments : fieldOf(call.arguments, spec.field);
          if (value === undefined) return allow;
          const text = typeof value === "string" ? value : JSON.stringify(value);
          return pattern.test(text)
            ? {
                allow: false,
                reason: `gate '${spec.name}': ${spec.field === undefined ? "the arguments match" : `${spec.field} matches`} a denied pattern`,
              }
            : allow;
        },
      };
    }
    case "allow-hosts": {
      const field = spec.field ?? "url";
      return {
        ...base,
        check: ({ call }) => {
          if (!appliesTo(spec.tool, call.name)) return allow;
          const value = fieldOf(call.arguments, field);
          if (value === undefined) return allow;
          let host: string;
          try {
            host = new URL(String(value)).hostname;
          } catch {
            return { allow: false, reason: `gate '${spec.name}': ${field} is not a URL` };
          }
          return hostMatches(host, spec.hosts)
            ? allow
            : { allow: false, reason: `gate '${spec.name}': host ${host} is not one of ${spec.hosts.join(", ")}` };
        },
      };
    }
    case "max-calls":
      return {
        ...base,
        check: ({ call }, ctx) => {
          if (!appliesTo(spec.tool, call.name)) return allow;
          const made = ownValue(ctx.run.callsByTool, call.name) ?? 0;
          return made >= spec.max
            ? {
                allow: false,
                reason: `gate '${spec.name}': '${call.name}' may be called at most ${spec.max} times per run`,
              }
            : allow;
        },
      };
    case "max-size":
      // Limits outputs only (core/gates/output.ts); a tool's arguments have its schema.
      return { ...base, check: () => allow };
  }
}

/** Whether a gate checks proposed tool calls: every kind but `max-size`, and a deny-pattern only when its `on` says `tool` (or is absent). */
export function checksToolCalls(spec: CustomGateSpec): boolean {
  if (spec.kind === "max-size") return false;
  return spec.kind !== "deny-pattern" || spec.on === undefined || spec.on.includes("tool");
}

/** An agent's custom gates on tool calls, run after the built-in checks of allowlist and schema, in declaration order. */
export function compileCustomGates(specs: readonly CustomGateSpec[]): Gate[] {
  return specs.flatMap((spec, index) => (checksToolCalls(spec) ? [makeCustomGate(spec, 30 + index / 1000)] : []));
}
