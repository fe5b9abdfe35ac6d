import { builtinGates, compileCustomGates, type CustomGateSpec } from "../../core/gates";
import type { LlmResponse, ToolCall } from "../../core/ports";
import {
  advance,
  newRunState,
  type RunDeps,
  type RunEffect,
  type RunEvent,
  type RunOrigin,
  type RunState,
} from "../../core/run";
import { defaultRunLimits, type RunLimits } from "../../core/run/limits";
import { makeAgentToolSpec, type ToolSpec } from "../../core/tools";

export const fetchTool: ToolSpec = {
  name: "http.fetch",
  description: "Fetch",
  parameters: {
    type: "object",
    properties: { url: { type: "string" } },
    required: ["url"],
    additionalProperties: false,
  },
  runtime: "builtin",
};
export const sendTool: ToolSpec = {
  name: "mail.send",
  description: "Send mail",
  parameters: { type: "object", properties: { to: { type: "string" } } },
  runtime: "http",
  requiresApproval: true,
};
export const askBob = makeAgentToolSpec("bob");

/** A model's call of `http.fetch` (the advance tests' usual tool call). */
export const fetchCall = (id = "c1", url = "https://a.example.com") => ({ id, name: "http.fetch", arguments: { url } });

export function reply(content: string, tokens = 10): LlmResponse {
  return {
    content,
    toolCalls: [],
    finishReason: "stop",
    usage: { inputTokens: tokens, outputTokens: 0 },
    model: "offline",
  };
}

export function propose(calls: ToolCall[], tokens = 10): LlmResponse {
  return {
    content: "",
    toolCalls: calls,
    finishReason: "tool_calls",
    usage: { inputTokens: tokens, outputTokens: 0 },
    model: "offline",
  };
}

/** A run driven event by event, as the Durable Object would drive it, with a clock it controls. */
export function makeRun(
  options: {
    limits?: Partial<RunLimits>;
    tools?: ToolSpec[];
    custom?: CustomGateSpec[];
    rateLimits?: RunDeps["rateLimits"];
    origin?: RunOrigin;
    outputGates?: RunDeps["outputGates"];
    beyondScope?: RunDeps["beyondScope"];
  } = {},
) {
  let now = 1_000;
  let state: RunState = newRunState({
    id: "run-1",
    agent: "scout",
    sessionId: "s-1",
    limits: { ...defaultRunLimits, ...options.limits },
    ...(options.origin ? { origin: options.origin } : {}),
  });
  let effects: RunEffect[] = [];
  const deps = (): RunDeps => ({
    now,
    tools: options.tools ?? [fetchTool, sendTool, askBob],
    gates: [...builtinGates(), ...compileCustomGates(options.custom ?? [])],
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.outputGates ? { outputGates: options.outputGates } : {}),
    ...(options.beyondScope ? { beyondScope: options.beyondScope } : {}),
  });
  return {
    send(event: RunEvent) {
      ({ state, effects } = advance(state, event, deps()));
      return effects;
    },
    start(text = "hello") {
      return this.send({
        type: "start",
        message: { role: "user", content: text },
        context: [{ role: "system", content: "You are scout." }],
      });
    },
    tick(ms: number) {
      now += ms;
    },
    get state() {
      return state;
    },
    set state(value: RunState) {
      state = value;
    },
    get effects() {
      return effects;
    },
    deps,
  };
}

export function ofType<T extends RunEffect["type"]>(effects: RunEffect[], type: T): Extract<RunEffect, { type: T }>[] {
  return effects.filter((e): e is Extract<RunEffect, { type: T }> => e.type === type);
}

/** The last messages the model was sent. */
export function lastModelMessages(effects: RunEffect[]) {
  const call = ofType(effects, "call_model").at(-1);
  if (!call) throw new Error(`no call_model among ${effects.map((e) => e.type).join(", ")}`);
  return call.messages;
}
