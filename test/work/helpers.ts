import { env } from "cloudflare:test";
import { api, uniqueName } from "../api/client";
import { scriptedAgent } from "../runs/scripted";
import type { ScriptStep } from "../doubles/scripted-model-server";

const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;

/** A token of the default project with one scope. */
export async function tokenOf(scope: "chat" | "approve" | "admin"): Promise<string> {
  const res = await api("/api/tokens", { method: "POST", json: { name: uniqueName(scope), scope } });
  return ((await res.json()) as { token: string }).token;
}

/** The tools an orchestrating agent declares. */
export const plannerTools = [
  "feature.create",
  "plan.ask",
  "plan.write",
  "plan.read",
  "tasks.sync",
  "task.start",
  "task.discard",
  "status",
  "fs.list",
  "fs.read",
];

/**
 * A planner agent on the scripted model, and a worker model of the feature's own (tasks run one at a
 * time, so the workers' replies are scripted in order on one queue).
 */
export async function plannerAndWorkers() {
  const planner = await scriptedAgent({ tools: plannerTools });
  const workerModel = uniqueName("worker-model");
  return {
    planner,
    workerModel,
    worker: { model: { provider: "openai", name: workerModel } },
    async scriptWorkers(steps: ScriptStep[]) {
      await fetch(`${doubleUrl()}/__script/${workerModel}`, { method: "POST", body: JSON.stringify(steps) });
    },
    async workerCalls(): Promise<any[]> {
      return (await fetch(`${doubleUrl()}/__calls/${workerModel}`)).json();
    },
  };
}

export async function json(res: Response | Promise<Response>): Promise<any> {
  const r = await res;
  const text = await r.text();
  try {
    return { ...(JSON.parse(text) as object), http: r.status };
  } catch {
    return { http: r.status, text };
  }
}

/** A feature created over the API with a plan the orchestrator wrote and a person approved, its tasks synced. */
export async function approvedFeature(markdown: string, options: { files?: Record<string, string> } = {}) {
  const setup = await plannerAndWorkers();
  const name = uniqueName("feat").slice(0, 40);
  const created = await api("/api/features", {
    method: "POST",
    json: {
      name,
      title: "A feature",
      orchestrator: setup.planner.name,
      worker: setup.worker,
      ...(options.files ? { files: options.files } : {}),
    },
  });
  if (created.status !== 201) throw new Error(`create feature: ${created.status} ${await created.text()}`);
  const plan = await api(`/api/features/${name}/plan`, { method: "PUT", json: { markdown } });
  if (plan.status !== 200) throw new Error(`plan: ${plan.status} ${await plan.text()}`);
  const approved = await api(`/api/features/${name}/plan/approve`, { method: "POST", json: {} });
  if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${await approved.text()}`);
  const synced = await api(`/api/features/${name}/tasks/sync`, { method: "POST" });
  if (synced.status !== 200) throw new Error(`sync: ${synced.status} ${await synced.text()}`);
  return { ...setup, feature: name };
}
