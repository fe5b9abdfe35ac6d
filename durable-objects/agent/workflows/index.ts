// The orchestration feature of an agent: fan-outs and workflows as the API reaches them (AgentDO wires it).
import type { AgentProfile } from "../../../core/agents";
import type { RunPrincipal } from "../../../core/auth";
import type { FanOutSpec } from "../../../core/bus";
import type { ActorScript } from "../../../core/dsl";
import { PantheonError } from "../../../core/errors";
import type { Workflow } from "../../../core/workflows";
import type { AgentBus } from "../bus";
import type { Workflows } from "./workflows";

export { makeWorkflows, workflowPrefix, type Workflows, type WorkflowDeps, type WorkflowView } from "./workflows";
/** A fan-out as GET /api/agents/:name/fanouts/:id answers it. */
export type FanOutView = NonNullable<ReturnType<AgentBus["fanOutView"]>>;

/** What the API asks of an agent's orchestration (one RPC method: AgentDO.orchestrate). */
export type OrchestrationRequest =
  | { op: "fanout.start"; spec: FanOutSpec; id?: string }
  | { op: "fanout.get"; id: string }
  | { op: "workflow.start"; workflow: Workflow | string; input: string; id?: string; principal: RunPrincipal }
  | { op: "workflow.get"; id: string }
  | { op: "workflow.list" };

const refused = (path: (string | number)[], message: string) =>
  new PantheonError("validation_failed", `${path.join(".")}: ${message}`, { details: { issues: [{ path, message }] } });

/** Agents only along declared connections: a target that is not one is refused before anything is sent. */
function checkConnected(
  profile: AgentProfile,
  names: readonly string[],
  path: (i: number) => (string | number)[],
): void {
  names.forEach((name, i) => {
    if (!profile.connections.includes(name))
      throw refused(
        path(i),
        `'${name}' is not a connection of '${profile.name}' (connections: ${profile.connections.join(", ") || "none"})`,
      );
  });
}

/** The workflows an agent's script declares. */
export const scriptWorkflows = (profile: AgentProfile): Workflow[] =>
  (profile.script as (ActorScript & { workflows?: Workflow[] }) | null)?.workflows ?? [];

export function makeOrchestration(deps: { bus: AgentBus; workflows: Workflows; profile(): AgentProfile }) {
  const { bus, workflows } = deps;
  return {
    async handle(request: OrchestrationRequest) {
      const profile = deps.profile();
      switch (request.op) {
        case "fanout.start": {
          checkConnected(profile, request.spec.targets, (i) => ["targets", i]);
          const id = request.id ?? crypto.randomUUID();
          await bus.startFanOut({ ...request.spec, id });
          return bus.fanOutView(id)!;
        }
        case "fanout.get": {
          const view = bus.fanOutView(request.id);
          if (!view)
            throw new PantheonError("not_found", `fan-out '${request.id}' does not exist on agent '${profile.name}'`, {
              details: { fanOut: request.id },
            });
          return view;
        }
        case "workflow.start": {
          const declared = scriptWorkflows(profile);
          const workflow =
            typeof request.workflow === "string" ? declared.find((w) => w.name === request.workflow) : request.workflow;
          if (!workflow)
            throw new PantheonError(
              "not_found",
              `workflow '${String(request.workflow)}' is not in the script of '${profile.name}' (its workflows: ${declared.map((w) => w.name).join(", ") || "none"})`,
              { details: { workflow: request.workflow } },
            );
          workflow.steps.forEach((step, i) => {
            if (step.kind === "ask") checkConnected(profile, [step.agent], () => ["workflow", "steps", i, "agent"]);
            if (step.kind === "fanout")
              checkConnected(profile, step.targets, (j) => ["workflow", "steps", i, "targets", j]);
          });
          const { id } = await workflows.start(
            { workflow, input: request.input, ...(request.id ? { id: request.id } : {}) },
            request.principal,
          );
          return workflows.view(id, profile.name)!;
        }
        case "workflow.get": {
          const view = workflows.view(request.id, profile.name);
          if (!view)
            throw new PantheonError(
              "not_found",
              `workflow run '${request.id}' does not exist on agent '${profile.name}'`,
              { details: { workflow: request.id } },
            );
          return view;
        }
        case "workflow.list":
          return scriptWorkflows(profile);
      }
    },

    /** On start and on the watchdog: fan-outs and workflows an eviction cut off carry on. */
    recover: () => workflows.recover(),

    /** Fan-outs and workflows not finished (the watchdog stays armed while there are any). */
    waiting: () => bus.fanOutsWaiting() + workflows.waiting(),
  };
}

export type Orchestration = ReturnType<typeof makeOrchestration>;
