import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";

/** `runInDurableObject` without its generics, which give up ("excessively deep") on AgentDO's types. */
export const insideAgent = runInDurableObject as unknown as <R>(
  stub: DurableObjectStub,
  fn: (instance: any, state: DurableObjectState) => R | Promise<R>,
) => Promise<R>;
import { api } from "../api/client";

export const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;

/** PUTs a script in the DSL (or JSON when `source` is an object). */
export async function putScript(name: string, source: string | object, contentType?: string) {
  const json = typeof source !== "string";
  const res = await api(`/api/agents/${name}/script`, {
    method: "PUT",
    headers: { "content-type": contentType ?? (json ? "application/json" : "text/x-pantheon") },
    body: json ? JSON.stringify(source) : source,
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function getJson(path: string): Promise<any> {
  return (await api(path)).json();
}

export const schedulesOf = async (name: string): Promise<any[]> =>
  (await getJson(`/api/agents/${name}/schedules`)).schedules;
export const runsOf = async (name: string): Promise<any[]> =>
  (await getJson(`/api/agents/${name}/runs?limit=200`)).runs;

/** The agent's Durable Object, as the worker names it (`<project>.<agent>`). */
export function agentObject(name: string, project = "default"): DurableObjectStub {
  // Untyped on purpose: the RPC types of AgentDO are too deep for runInDurableObject's generics.
  const ns = env.AGENT_DO as unknown as DurableObjectNamespace;
  return ns.get(ns.idFromName(`${project}.${name}`));
}

/** The behavior alarms the agents SDK holds for the agent (what a duplicate would show up in). */
export async function behaviorAlarms(name: string): Promise<any[]> {
  return insideAgent(agentObject(name), async (instance: any) =>
    (await instance.listSchedules()).filter((s: any) => s.callback === "onBehaviorAlarm"),
  );
}

/**
 * Polls (bounded) until `check` passes, running the agent's due alarm on each turn: behaviors
 * whose time has come fire through the same alarm path as in production.
 */
export async function untilAlarmed<T>(
  name: string,
  read: () => Promise<T>,
  check: (value: T) => boolean,
  what: string,
): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 150; i++) {
    await runDurableObjectAlarm(agentObject(name));
    last = await read();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 800)}`);
}

/** An operator HTTP tool served by the double (`status` makes it always fail). */
export function httpTool(name: string, key: string, status?: number) {
  return {
    name,
    description: `Test tool ${name}`,
    parameters: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false },
    endpoint: `${doubleUrl()}/__tool/${key}${status ? `?status=${status}` : ""}`,
  };
}

export async function toolCalls(key: string): Promise<any[]> {
  return (await fetch(`${doubleUrl()}/__tool-calls/${key}`)).json();
}
