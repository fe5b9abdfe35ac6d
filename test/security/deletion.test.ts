import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { adminToken, api, uniqueName } from "../api/client";
import { doubleUrl, httpTool } from "../runs/scripted";

// Issue 26, item 3: deleting a project or an agent ends every client's access before the answer
// (sockets closed with 4410 and why, SSE streams ended, pending approvals cancelled), and a socket
// is bound to the creation it opened on: nothing of a later agent of the same names reaches it.

interface Watched {
  frames: any[];
  closed: { code: number; reason: string } | null;
  ws: WebSocket;
}

async function openSocket(project: string, agent: string): Promise<Watched> {
  const res = await api(`/agents/agent-do/${project}.${agent}?token=${adminToken}`, {
    token: null,
    headers: { upgrade: "websocket" },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const watched: Watched = { frames: [], closed: null, ws };
  ws.addEventListener("message", (event) => {
    watched.frames.push(JSON.parse(event.data as string));
  });
  ws.addEventListener("close", (event) => {
    watched.closed = { code: event.code, reason: event.reason };
  });
  await until(() => watched.frames.some((f) => f.type === "cf_agent_state"), "the socket's first state");
  return watched;
}

async function until(check: () => boolean, what: string, ms = 3000) {
  for (const started = Date.now(); Date.now() - started < ms; ) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const inProject = (project: string) => ({ "x-pantheon-project": project });

async function createIn(project: string, name: string, extra: Record<string, unknown> = {}) {
  const res = await api("/api/agents", {
    method: "POST",
    headers: inProject(project),
    json: { name, description: "a tenant's agent", systemPrompt: "Answer briefly.", ...extra },
  });
  expect(res.status).toBe(201);
}

async function chatIn(project: string, name: string, content: string) {
  const res = await api(`/api/agents/${name}/messages`, {
    method: "POST",
    headers: inProject(project),
    json: { content },
  });
  return { status: res.status, body: (await res.json()) as any };
}

const runFrames = (w: Watched) => w.frames.filter((f) => f.type === "run_event");

describe("deleting a project ends its clients' access at once", () => {
  it("closes its agent's socket with 4410 and the reason before DELETE answers; the same names made again reach no old socket; another project's socket goes on", async () => {
    const b = uniqueName("tenant-b");
    const a = uniqueName("tenant-a");
    for (const project of [a, b]) {
      expect((await api("/api/projects", { method: "POST", json: { slug: project } })).status).toBe(201);
      await createIn(project, "helper");
    }
    const oldB = await openSocket(b, "helper");
    const aSocket = await openSocket(a, "helper");
    expect((await chatIn(b, "helper", "before the deletion")).status).toBe(200);
    await until(() => runFrames(oldB).some((f) => f.event.type === "done"), "b's own run on b's socket");

    expect((await api(`/api/projects/${b}`, { method: "DELETE" })).status).toBe(204);
    await until(() => oldB.closed !== null, "the close of b's socket", 200);
    expect(oldB.closed).toEqual({ code: 4410, reason: `project '${b}' was deleted` });
    expect(aSocket.closed).toBeNull();
    const heard = oldB.frames.length;

    // b again, with an agent of the same name, and a turn of the new tenant.
    expect((await api("/api/projects", { method: "POST", json: { slug: b } })).status).toBe(201);
    await createIn(b, "helper");
    const secretWords = "the new tenant's words: zebra-umbrella";
    expect((await chatIn(b, "helper", secretWords)).status).toBe(200);
    const newB = await openSocket(b, "helper");
    expect((await chatIn(b, "helper", "and again")).status).toBe(200);
    await until(() => runFrames(newB).some((f) => f.event.type === "done"), "the new tenant's run on its own socket");
    expect(oldB.frames.length).toBe(heard);
    expect(JSON.stringify(oldB.frames)).not.toContain("zebra-umbrella");

    // The positive control: a's socket heard a's runs across b's deletion.
    expect((await chatIn(a, "helper", "a is still here")).status).toBe(200);
    await until(() => runFrames(aSocket).some((f) => f.event.type === "done"), "a's run on a's socket");
    expect(aSocket.closed).toBeNull();
    aSocket.ws.close();
    newB.ws.close();
  });

  it("a socket whose close was missed (the deletion never reached the agent's object) hears nothing of the agent made again, and is closed when it is", async () => {
    const project = uniqueName("missed");
    expect((await api("/api/projects", { method: "POST", json: { slug: project } })).status).toBe(201);
    await createIn(project, "helper");
    const old = await openSocket(project, "helper");
    expect((await chatIn(project, "helper", "the old agent's words: heron-violin")).status).toBe(200);
    // The worker died between the registry and the agent: only the registry's row went.
    const registry = (env as any).REGISTRY.get((env as any).REGISTRY.idFromName(project));
    expect((await registry.deleteAgent("helper")).ok).toBe(true);
    await createIn(project, "helper");
    await until(() => old.closed !== null, "the stale socket's close");
    expect(old.closed!.code).toBe(4410);
    const heard = old.frames.length;
    const fresh = await openSocket(project, "helper");
    expect((await chatIn(project, "helper", "only for the new agent: walrus-piano")).status).toBe(200);
    await until(() => runFrames(fresh).some((f) => f.event.type === "done"), "the new agent's run on its socket");
    expect(old.frames.length).toBe(heard);
    // The old agent's history went with it.
    const history = (await (await api(`/api/agents/helper/messages`, { headers: inProject(project) })).json()) as any;
    expect(history.messages).toHaveLength(2);
    expect(JSON.stringify(history)).toContain("walrus-piano");
    expect(JSON.stringify(history)).not.toContain("heron-violin");
    fresh.ws.close();
  });
});

describe("a deletion cut off midway (the worker or the agent's object died)", () => {
  it("after the agent forgot and before the registry's row went: a new socket is refused without a frame, and DELETE again finishes it", async () => {
    const project = uniqueName("cutoff");
    expect((await api("/api/projects", { method: "POST", json: { slug: project } })).status).toBe(201);
    await createIn(project, "helper");
    const agent = (env as any).AGENT_DO.get((env as any).AGENT_DO.idFromName(`${project}.helper`));
    const ended = await agent.forget({ by: "a test", closeReason: "cut off" });
    expect(ended).toEqual({ runs: 0, streams: 0, sockets: 0 });

    const res = await api(`/agents/agent-do/${project}.helper?token=${adminToken}`, {
      token: null,
      headers: { upgrade: "websocket" },
    });
    const ws = res.webSocket!;
    const frames: unknown[] = [];
    let closed: { code: number; reason: string } | null = null;
    ws.addEventListener("message", (event) => {
      frames.push(event.data);
    });
    ws.addEventListener("close", (event) => {
      closed = { code: event.code, reason: event.reason };
    });
    ws.accept();
    await until(() => closed !== null, "the refused socket's close");
    expect(closed).toEqual({ code: 4410, reason: "this agent was deleted or made again: reconnect" });
    expect(frames).toEqual([]);

    expect((await api("/api/agents/helper", { method: "DELETE", headers: inProject(project) })).status).toBe(204);
    expect((await api("/api/agents/helper", { headers: inProject(project) })).status).toBe(404);
    // The positive control: the name made again is a working agent with a working socket.
    await createIn(project, "helper");
    const fresh = await openSocket(project, "helper");
    expect((await chatIn(project, "helper", "hello again")).status).toBe(200);
    await until(() => runFrames(fresh).some((f) => f.event.type === "done"), "the new agent's run");
    fresh.ws.close();
  });
});

async function scriptedIn(project: string, runtime: Record<string, unknown> = {}) {
  const name = uniqueName("scripted");
  const model = uniqueName("model");
  await createIn(project, name, {
    model: { provider: "openai", name: model },
    runtime: { allowHosts: [new URL(doubleUrl()).hostname], ...runtime },
  });
  const script = (steps: unknown[]) =>
    fetch(`${doubleUrl()}/__script/${model}`, { method: "POST", body: JSON.stringify(steps) });
  return { name, script };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

describe("deleting an agent ends its streams and approvals", () => {
  it("ends a turn's SSE stream mid-run, with the reason, before DELETE answers", async () => {
    const agent = await scriptedIn("default");
    const hold = crypto.randomUUID();
    await agent.script([{ content: "never sent", hold }]);
    const res = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { content: "a long question" },
    });
    expect(res.status).toBe(200);
    let ended = false;
    const body = readAll(res.body!).then((text) => ((ended = true), text));
    await new Promise((r) => setTimeout(r, 150));
    expect(ended).toBe(false); // the model is held: the stream is open
    expect((await api(`/api/agents/${agent.name}`, { method: "DELETE" })).status).toBe(204);
    await until(() => ended, "the end of the SSE stream", 500);
    const text = await body;
    expect(text).toContain(`cancelled by the deletion of agent '${agent.name}'`);
    expect(text).not.toContain("never sent");
    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
  });

  it("cancels a run waiting for approval with the reason, tells the socket, then closes it; the approval is gone", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedIn("default", { httpTools: [httpTool("mail.send", key, { requiresApproval: true })] });
    await agent.script([
      { toolCalls: [{ name: "mail.send", arguments: { text: "hello boss" } }] },
      { content: "Sent." },
    ]);
    const paused = await chatIn("default", agent.name, "email the boss");
    expect(paused.body.status).toBe("waiting_approval");
    const socket = await openSocket("default", agent.name);
    const approvals = async () => JSON.stringify(await (await api("/api/approvals")).json());
    expect(await approvals()).toContain(paused.body.runId);

    expect((await api(`/api/agents/${agent.name}`, { method: "DELETE" })).status).toBe(204);
    await until(() => socket.closed !== null, "the socket's close", 200);
    expect(socket.closed).toEqual({ code: 4410, reason: `agent '${agent.name}' was deleted` });
    const events = runFrames(socket)
      .filter((f) => f.runId === paused.body.runId)
      .map((f) => f.event);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "error",
        code: "cancelled",
        message: expect.stringContaining(`the deletion of agent '${agent.name}'`),
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "done", status: "cancelled" }));
    expect(await approvals()).not.toContain(paused.body.runId);
    // Deciding afterwards finds nothing: the agent is gone.
    const late = await api(`/api/agents/${agent.name}/runs/${paused.body.runId}/approval`, {
      method: "POST",
      json: { decision: "approve" },
    });
    expect(late.status).toBe(404);
  });

  it("the positive control: an agent's socket and stream work as before while it exists", async () => {
    const agent = await scriptedIn("default");
    await agent.script([{ content: "Here you go." }]);
    const socket = await openSocket("default", agent.name);
    const res = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { content: "hello" },
    });
    const text = await readAll(res.body!);
    expect(text).toContain("Here you go.");
    await until(() => runFrames(socket).some((f) => f.event.type === "done"), "the run on the socket");
    expect(socket.closed).toBeNull();
    socket.ws.close();
  });
});
