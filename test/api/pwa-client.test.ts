import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeApi, type RunEvent } from "../../pwa/src/api";
import { type ApiError, isApiError } from "../../pwa/src/errors";
import { adminToken, uniqueName } from "./client";

// The PWA's API client (Hono's `hc`, typed by the worker's routes) against the real worker: the
// same requests the app makes, the same answers it reads. test/contract/api-types.ts checks the types.

const base = "https://pantheon.test";
const workerFetch: typeof fetch = (input, init) => SELF.fetch(input, init);

function pwaApi(token: string | null = adminToken, fetch: typeof globalThis.fetch = workerFetch) {
  return makeApi({ getToken: () => token, getProject: () => "default", baseUrl: base, fetch });
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isApiError(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe("the PWA's API client", () => {
  it("creates, lists and reads an agent through the typed routes", async () => {
    const api = pwaApi();
    const name = uniqueName("pwa");
    const created = await api.createAgent({ name, description: "Made by the PWA client" });
    expect(created).toMatchObject({ name, description: "Made by the PWA client", status: "idle" });
    const { agents } = await api.listAgents();
    expect(agents.map((a) => a.name)).toContain(name);
    expect((await api.getAgent(name)).description).toBe("Made by the PWA client");
    expect(await api.health()).toEqual({ ok: true, version: expect.any(String) });
  });

  it("streams a reply as run events, from the stored question to done with the stored reply", async () => {
    const api = pwaApi();
    const name = uniqueName("pwa");
    await api.createAgent({ name, systemPrompt: "You are a test agent. The launch code word is pineapple." });
    const events: RunEvent[] = [];
    await api.streamMessage(name, { content: "Tell me the launch code word" }, (event) => events.push(event));

    const first = events[0];
    const last = events.at(-1);
    expect(first?.type === "run" && first.userMessage?.content).toBe("Tell me the launch code word");
    expect(events.some((e) => e.type === "token")).toBe(true);
    if (last?.type !== "done") throw new Error(`the stream ended with ${JSON.stringify(last)}`);
    expect(last.status).toBe("completed");
    expect(last.reply?.content.toLowerCase()).toContain("pineapple");

    const { messages } = await api.listMessages(name, { session: "", limit: 1 });
    expect(messages).toEqual([last.reply]);
    const { run, trace } = await api.getRun(name, last.runId);
    expect(run).toMatchObject({ id: last.runId, status: "completed", trigger: "message" });
    expect(trace.at(-1)?.name).toBe("run_finished");
  });

  it("turns a refused request into an ApiError with the server's code, message, request id and field issues", async () => {
    const api = pwaApi();
    const invalid = await refusal(api.createAgent({ name: "Not A Slug" }));
    expect(invalid).toMatchObject({ status: 400, code: "validation_failed", requestId: expect.any(String) });
    expect(invalid.details?.issues?.[0]?.path).toEqual(["name"]);

    const missing = await refusal(api.getAgent(uniqueName("nobody")));
    expect(missing).toMatchObject({ status: 404, code: "not_found" });

    const wrongToken = await refusal(pwaApi("wrong-token").listAgents());
    expect(wrongToken).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("escapes path parameters: a name with a slash stays one segment", async () => {
    const refused = await refusal(pwaApi().getAgent("a/b"));
    expect(refused).toMatchObject({ status: 400, code: "validation_failed" });
    expect(refused.details?.issues?.[0]?.path).toEqual(["name"]);
  });

  it("reports an unreachable server as status 0, and HTML where JSON was expected as not available", async () => {
    const offline = await refusal(pwaApi(adminToken, () => Promise.reject(new TypeError("fetch failed"))).listAgents());
    expect(offline).toMatchObject({ status: 0, code: "network" });

    const shell = () => Promise.resolve(new Response("<!doctype html>", { headers: { "content-type": "text/html" } }));
    const fallthrough = await refusal(pwaApi(adminToken, shell).getBus());
    expect(fallthrough).toMatchObject({ status: 404, code: "not_available" });
  });
});
