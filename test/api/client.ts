import { SELF } from "cloudflare:test";

export const adminToken = "test-admin-token";

/** Calls the worker as a client would, with the admin token unless `token` says otherwise. */
export function api(path: string, init: RequestInit & { token?: string | null; json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? adminToken : init.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return SELF.fetch(`https://pantheon.test${path}`, { ...init, headers, body });
}

let counter = 0;
/** A fresh agent name per test, so tests never share Durable Object state. */
export function uniqueName(prefix = "agent"): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

export async function createAgent(overrides: Record<string, unknown> = {}) {
  const name = (overrides.name as string) ?? uniqueName();
  const res = await api("/api/agents", {
    method: "POST",
    json: { name, description: "A test agent", systemPrompt: "You are a test agent. The launch code word is pineapple.", ...overrides },
  });
  if (res.status !== 201) throw new Error(`create agent failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { name: string; [key: string]: unknown };
}

export interface ErrorBody {
  error: { code: string; message: string; requestId: string; details?: { issues?: { path: (string | number)[]; message: string }[] } };
}

/** Reads an SSE body into its events. */
export async function readSse(res: Response): Promise<{ event: string; data: any }[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((frame) => frame.trim())
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null");
      return { event, data };
    });
}
