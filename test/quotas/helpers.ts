import type { ScriptStep } from "../doubles/scripted-model-server";
import { adminToken, api, uniqueName } from "../api/client";
import { doubleUrl } from "../runs/scripted";

/** A fresh project (so its caps and test clock touch no other test), and calls made in it. */
export async function quotaProject() {
  const slug = uniqueName("quota");
  const inProject = (path: string, init: Parameters<typeof api>[1] = {}) =>
    api(path, { ...init, headers: { ...(init.headers as Record<string, string>), "x-pantheon-project": slug } });
  const json = async (path: string, init: Parameters<typeof api>[1] = {}) => {
    const res = await inProject(path, init);
    return { status: res.status, body: (await res.json()) as any };
  };
  // Created now (api() makes the project on first use): tokens need it.
  await json("/api/quotas");
  return {
    slug,
    json,
    /** A token of this project with the scope (the project's own admin is not the deployment's). */
    async token(scope: "chat" | "admin"): Promise<string> {
      return (await json("/api/tokens", { method: "POST", json: { name: uniqueName(scope), scope } })).body.token;
    },
    /** An agent on the scripted double with a model of its own (or `model`, e.g. a priced one). */
    async agent(options: { limits?: Record<string, unknown>; model?: string } = {}) {
      const name = uniqueName("spender");
      const model = options.model ?? uniqueName("quota-model");
      const created = await json("/api/agents", {
        method: "POST",
        json: {
          name,
          description: "spends",
          model: { provider: "openai", name: model },
          runtime: { tools: ["clock.now"], ...(options.limits ? { limits: options.limits } : {}) },
        },
      });
      if (created.status !== 201) throw new Error(`create agent: ${created.status} ${JSON.stringify(created.body)}`);
      return {
        name,
        model,
        script: (steps: ScriptStep[]) =>
          fetch(`${doubleUrl()}/__script/${model}`, { method: "POST", body: JSON.stringify(steps) }),
        calls: async (): Promise<unknown[]> => (await fetch(`${doubleUrl()}/__calls/${model}`)).json(),
        send: (content: string) => json(`/api/agents/${name}/messages`, { method: "POST", json: { content } }),
        run: async (runId: string) => (await json(`/api/agents/${name}/runs/${runId}`)).body,
      };
    },
    /** Moves this project's quota clock (the deployment's admin; PANTHEON_TEST_CLOCK=1 in vitest.config.ts). */
    moveClock: (offsetMs: number, token: string = adminToken) =>
      json(`/api/projects/${slug}/test-clock`, { method: "PUT", json: { offsetMs }, token }),
  };
}

export const day = 86_400_000;
