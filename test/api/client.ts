import { SELF } from "cloudflare:test";
import { isReservedName } from "../../core/reserved-names";

export const adminToken = "test-admin-token";

const projectSlug = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * Creates a project with the admin token unless it exists (projects are created explicitly; an
 * unknown one is a 404). Tests that act in another project get it made here, before their request.
 */
export async function ensureProject(slug: string): Promise<void> {
  // Not a slug, or a reserved name (`constructor`): left for the route to refuse.
  if (slug === "default" || !projectSlug.test(slug) || isReservedName(slug)) return;
  const res = await SELF.fetch("https://pantheon.test/api/projects", {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ slug }),
  });
  if (res.status !== 201 && res.status !== 409)
    throw new Error(`create project '${slug}' failed: ${res.status} ${await res.text()}`);
}

/**
 * Calls the worker as a client would, with the admin token unless `token` says otherwise. A project
 * named by `X-Pantheon-Project` or `?project=` is created first, unless `newProject: false` (tests
 * of the unknown-project answer).
 */
export async function api(
  path: string,
  init: RequestInit & { token?: string | null; json?: unknown; newProject?: false } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.newProject !== false) {
    const project =
      headers.get("x-pantheon-project") ?? new URL(path, "https://pantheon.test").searchParams.get("project");
    if (project) await ensureProject(project);
  }
  const token = init.token === undefined ? adminToken : init.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const { newProject: _, ...request } = init;
  return SELF.fetch(`https://pantheon.test${path}`, { ...request, headers, body });
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
    json: {
      name,
      description: "A test agent",
      systemPrompt: "You are a test agent. The launch code word is pineapple.",
      ...overrides,
    },
  });
  if (res.status !== 201) throw new Error(`create agent failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { name: string; [key: string]: unknown };
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    requestId: string;
    details?: { issues?: { path: (string | number)[]; message: string }[] };
  };
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
