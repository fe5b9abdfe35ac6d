import { PantheonError } from "../errors";
import type { GateDecision, GateOutcome } from "./gate";
import type { CustomGateSpec, OutputKind } from "./gate-spec";
import { compileDenyPattern } from "./pattern";
import { makeSecretDetector } from "../redaction";
import { minSecretLength, type SecretLeak } from "./secret-leak";

/** One thing the agent is about to send or store: its kind and its text. */
export interface OutputProposal {
  kind: OutputKind;
  text: string;
}

/** A secret the agent must never send, by name (what a rejection may say) and value (what it must not). */
export type { NamedSecret } from "../redaction";
import type { NamedSecret } from "../redaction";

/**
 * A pure check of one output. Unlike a tool gate it needs no run context: what an output may hold
 * depends only on its kind and its text.
 */
export interface OutputGate {
  name: string;
  check(proposal: OutputProposal): GateDecision;
}

/** The built-in size limit of each kind, in characters (a memory is one sentence, as `memory.store` says). */
export const defaultOutputSizes: Readonly<Record<OutputKind, number>> = {
  reply: 32_000,
  message: 32_000,
  answer: 32_000,
  memory: 4_000,
};

/** How a rejected output is named to the model and in the run's error. */
export const outputNames: Readonly<Record<OutputKind, string>> = {
  reply: "reply",
  message: "message",
  memory: "memory",
  answer: "answer to the asking agent",
};

const allow: GateDecision = { allow: true };

const formWords: Record<SecretLeak["form"], string> = {
  plain: "as it is",
  base64: "base64-encoded",
  hex: "hex-encoded",
  base64url: "base64url-encoded",
  "url-encoded": "url-encoded",
  reversed: "reversed",
  split: "split into pieces",
  partial: "in part",
};

/** Outputs over their kind's size are refused before anything else reads them. */
export function outputSizeGate(sizes: Readonly<Record<OutputKind, number>> = defaultOutputSizes): OutputGate {
  return {
    name: "output-size",
    check: ({ kind, text }) =>
      text.length > sizes[kind]
        ? {
            allow: false,
            reason: `the ${outputNames[kind]} is ${text.length} characters long; at most ${sizes[kind]} are allowed: make it shorter`,
          }
        : allow,
  };
}

/**
 * The agent's secrets in any form the one detector recognises (core/redaction: plain, base64, hex,
 * url-encoded, reversed, split, half of one). The reason names the secret and the form, never the value.
 */
export function secretLeakGate(secrets: readonly NamedSecret[]): OutputGate {
  const detector = makeSecretDetector(secrets, { minLength: minSecretLength });
  return {
    name: "secret-leak",
    check: ({ kind, text }) => {
      const leak = detector.first(text);
      if (!leak) return allow;
      const name = leak.name;
      return {
        allow: false,
        reason: `the ${outputNames[kind]} carries the secret ${name} (${formWords[leak.form]}); a secret's value is never sent or stored: leave it out`,
      };
    },
  };
}

/**
 * The output gates an operator declared: deny-pattern gates whose `on` names output kinds, and
 * max-size gates. A deny pattern is tested against the whole text, case-insensitively, in linear time.
 * @example
 * compileOutputGates([{ name: "no-internal-urls", kind: "deny-pattern", on: ["reply"], pattern: "https?://[^ ]*\\.internal" }]);
 */
export function compileOutputGates(specs: readonly CustomGateSpec[]): OutputGate[] {
  const gates: OutputGate[] = [];
  for (const spec of specs) {
    if (spec.kind === "max-size") {
      gates.push({
        name: spec.name,
        check: ({ kind, text }) =>
          spec.on.includes(kind) && text.length > spec.max
            ? {
                allow: false,
                reason: `gate '${spec.name}': the ${outputNames[kind]} is ${text.length} characters long; at most ${spec.max} are allowed`,
              }
            : allow,
      });
    } else if (spec.kind === "deny-pattern" && spec.on?.some((target) => target !== "tool")) {
      const compiled = compileDenyPattern(spec.pattern);
      if (!compiled.ok)
        throw new PantheonError("script_invalid", `gate '${spec.name}': ${compiled.reason}`, {
          details: { gate: spec.name },
        });
      const kinds = new Set(spec.on);
      gates.push({
        name: spec.name,
        check: ({ kind, text }) =>
          kinds.has(kind) && compiled.matcher.test(text)
            ? { allow: false, reason: `gate '${spec.name}': the ${outputNames[kind]} matches a denied pattern` }
            : allow,
      });
    }
  }
  return gates;
}

/**
 * Every output gate of an agent, in the order they run: size, secret leak, then the operator's in
 * declaration order.
 * @example
 * const gates = agentOutputGates({ secrets: [{ name: "AIRTABLE_KEY", value }], specs: profile.runtime.gates });
 * checkOutput(gates, { kind: "reply", text }); // { allow: false, rejection: { gate: "secret-leak", … }, decisions }
 */
export function agentOutputGates(input: {
  secrets: readonly NamedSecret[];
  specs: readonly CustomGateSpec[];
}): OutputGate[] {
  return [outputSizeGate(), secretLeakGate(input.secrets), ...compileOutputGates(input.specs)];
}

/** Runs output gates in order and stops at the first rejection; `decisions` is what the trace records. */
export function checkOutput(gates: readonly OutputGate[], proposal: OutputProposal): GateOutcome {
  const decisions: GateOutcome["decisions"] = [];
  for (const gate of gates) {
    let decision: GateDecision;
    try {
      decision = gate.check(proposal);
    } catch (error) {
      // A broken gate fails closed.
      decision = {
        allow: false,
        reason: `gate '${gate.name}' failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    decisions.push({ gate: gate.name, decision });
    if (!decision.allow) return { allow: false, rejection: { gate: gate.name, decision }, decisions };
  }
  return { allow: true, decisions };
}

/** Tools whose call is also an output: the argument that is written, and its kind. */
export const toolOutputs: Readonly<Record<string, { kind: OutputKind; field: string }>> = {
  "memory.store": { kind: "memory", field: "text" },
};

/**
 * A behavior's plan proposes its `message` and `remember` steps to the run as calls of these names
 * (only a plan can: the run accepts them from a response whose provider is `plan`), so they pass the
 * output gates, the trace and the retry rule like everything else the agent sends.
 */
export const planOutputCalls: Readonly<Record<string, OutputKind>> = {
  "output.message": "message",
  "output.remember": "memory",
};
