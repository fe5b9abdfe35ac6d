import type { AgentProfile } from "../../../core/agents";
import {
  agentOutputGates,
  checkOutput,
  modelOutputSinks,
  type NamedSecret,
  type OutputScreen,
} from "../../../core/gates";
import type { Clock } from "../../../core/ports";
import { makeSecretDetector } from "../../../core/redaction";
import { otlpHeaderSecrets } from "../../../core/telemetry";
import { redactDeep } from "../../../core/tools";
import type { ProjectSecrets } from "../secrets";
import type { HeldWrites } from "./held-writes";
import { modelKeysOf, modelSecretNamesOf } from "./models";
import { outputSecrets } from "./tools";

/**
 * What keeps the agent's secrets in: the list the output gates keep out of everything the agent
 * sends or stores, the redactor of what it exports, and the screen of its background writes. Below
 * the memory, the run's context and the bus, which all screen with it; it reads only the secrets
 * the agent has opened (secrets/).
 */
export function makeOutputScreens(deps: {
  env: Env;
  clock: Clock;
  secrets: ProjectSecrets;
  writes: Pick<HeldWrites, "stepFromOutside">;
}) {
  /**
   * The project secrets the agent holds — its tools', its bot's, its model keys, its OTLP headers — and
   * the deployment's (tools/outputSecrets). `toolSecrets` is a tool set's own (a subset of the `tool`
   * values, which are all kept out anyway).
   *
   * The list built for each tool set's own secrets (none: the agent's as a whole), kept while the secrets
   * known for the uses it reads stay the same: a warm turn builds none, and a background screen or export
   * (no tool set) does not push out the turn's.
   */
  const kept = new Map<Record<string, string> | undefined, { version: string; list: NamedSecret[] }>();
  function secretsHeld(toolSecrets?: Record<string, string>): NamedSecret[] {
    const { secrets, env } = deps;
    const version = `${secrets.version("tool")}.${secrets.version("telegram")}.${secrets.version("model")}.${secrets.version("telemetry")}`;
    const found = kept.get(toolSecrets);
    if (found?.version === version) return found.list;
    const list = outputSecrets(env as unknown as Record<string, unknown>, {
      ...secrets.values("tool"),
      ...secrets.values("telegram"),
      ...modelKeysOf(secrets.values("model")),
      ...otlpHeaderSecrets(secrets.values("telemetry").OTEL_EXPORTER_OTLP_HEADERS),
      ...toolSecrets,
    });
    // One tool set is current at a time: the entries of older ones go with the next change.
    if (!found && kept.size >= 4) kept.clear();
    kept.set(toolSecrets, { version, list });
    return list;
  }

  return {
    secretsHeld,

    /** Every secret the agent could hold, as one detector: for what it exports (core/redaction). */
    redactor: () => makeSecretDetector(secretsHeld()),

    /** The project's own model settings `profile`'s model reads: loaded once (one round trip), then from memory. */
    async projectModel(profile: AgentProfile) {
      const loading = deps.secrets.ensure(modelSecretNamesOf(profile), "model");
      if (loading) await loading;
      return deps.secrets.values("model");
    },

    /**
     * The output gates for the agent as it is now (its gates and secrets), as the screen every
     * background write of model output passes (core/gates/sinks: the summary fold, extraction, a
     * fan-out): a refused text is not stored, and the refusal is written to the trace of the run whose
     * turn it came from (no model reads it). The gates are built on the first write, so a turn that
     * writes nothing pays nothing.
     */
    screenFor(profile: AgentProfile): OutputScreen {
      let built: { secrets: NamedSecret[]; gates: ReturnType<typeof agentOutputGates> } | undefined;
      return (sink, text, runId) => {
        if (!built) {
          const secrets = secretsHeld();
          built = { secrets, gates: agentOutputGates({ secrets, specs: profile.runtime.gates }) };
        }
        const kind = modelOutputSinks[sink].kind;
        const outcome = checkOutput(built.gates, { kind, text });
        if (outcome.allow) return null;
        if (runId) {
          const data = redactDeep(
            { output: kind, by: sink, decisions: outcome.decisions },
            built.secrets.map((s) => s.value),
          );
          deps.writes.stepFromOutside({
            runId,
            kind: "gate",
            name: "gate_decisions",
            data,
            startedAt: deps.clock.now(),
            durationMs: 0,
          });
        }
        return outcome.rejection.decision.reason;
      };
    },
  };
}

export type OutputScreens = ReturnType<typeof makeOutputScreens>;
