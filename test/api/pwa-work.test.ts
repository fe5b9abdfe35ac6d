import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeApi } from "../../pwa/src/api";
import { describeError, isApiError, type ApiError } from "../../pwa/src/errors";
import { plannerTools, tokenOf } from "../work/helpers";
import { adminToken, api, createAgent, uniqueName } from "./client";

// The PWA's Work calls (pwa/src/api.ts) against the real worker: the shapes the Work area reads,
// and a 403 explained the way the PWA explains it.

const workerFetch: typeof fetch = (input, init) => SELF.fetch(input, init);
const pwaApi = (token: string = adminToken) =>
  makeApi({ getToken: () => token, getProject: () => "default", baseUrl: "https://pantheon.test", fetch: workerFetch });

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isApiError(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

const plan = "# Plan\n\n## Tasks\n\n1. One — the first task\n2. Two — the second task\n";

/** A feature with a plan written by its planner (over the API, as a manual call of plan.write). */
async function featureWithPlan() {
  const planner = (await createAgent({ runtime: { tools: plannerTools } })).name;
  const name = uniqueName("pwa-feat").slice(0, 40);
  const created = await api("/api/features", {
    method: "POST",
    json: { name, title: "A PWA feature", orchestrator: planner },
  });
  expect(created.status).toBe(201);
  expect((await api(`/api/features/${name}/plan`, { method: "PUT", json: { markdown: plan } })).status).toBe(200);
  return name;
}

describe("the PWA's Work calls", () => {
  it("list features, read the plan, comment on a line, approve, and read the board and a task before it starts", async () => {
    const feature = await featureWithPlan();
    const client = pwaApi();
    expect((await client.listFeatures()).features.map((f) => f.name)).toContain(feature);
    const read = await client.getPlan(feature);
    expect(read).toMatchObject({ version: 1, latest: true, approved: false, comments: [], versions: [{ version: 1 }] });
    expect(read.markdown.split("\n")[4]).toBe("1. One — the first task");

    const comment = await client.commentPlan(feature, { version: 1, line: 5, body: "Name the file" });
    expect(comment).toMatchObject({ line: 5, body: "Name the file", version: 1 });
    expect((await client.getPlan(feature, 1)).comments.map((c) => [c.line, c.body])).toEqual([[5, "Name the file"]]);

    const approved = await client.approvePlan(feature, 1);
    expect(approved).toMatchObject({ version: 1, approved: true });
    expect((await client.getFeature(feature)).plan).toMatchObject({ version: 1, approved: true });

    expect((await api(`/api/features/${feature}/tasks/sync`, { method: "POST" })).status).toBe(200);
    const { tasks } = await client.listTasks(feature);
    expect(tasks.map((t) => [t.number, t.name, t.status])).toEqual([
      [1, "One", "pending"],
      [2, "Two", "pending"],
    ]);
    // A task never started: no spec, no runs, nothing committed (the view reads a null diff as none).
    const task = await client.getTask(feature, 1);
    expect(task).toMatchObject({
      number: 1,
      status: "pending",
      spec: null,
      runIds: [],
      patch: "",
      pending: { filesChanged: 0 },
    });
    expect(task.diff === null || task.diff.filesChanged === 0).toBe(true);
    const report = await client.getReport(feature);
    expect(report.tasks[0]).toMatchObject({ number: 1, runs: [], tokens: { input: 0, output: 0 } });
  });

  it("explains a chat token's refused approval in words, naming the scope it needs", async () => {
    const feature = await featureWithPlan();
    const reader = pwaApi(await tokenOf("chat"));
    const error = await refusal(reader.approvePlan(feature));
    expect(error).toMatchObject({ status: 403, details: { needed: "approve", scope: "chat" } });
    expect(describeError(error, "approve")).toBe(
      "This needs a token with the 'approve' scope; yours has 'chat'. Ask an operator for one (pantheon tokens create <name> --scope approve).",
    );
    // What the Work area probes to learn the token's scope: an admin-only read, refused with the scope.
    expect(await refusal(reader.getBus())).toMatchObject({ status: 403, details: { scope: "chat" } });
    expect((await pwaApi(await tokenOf("approve")).approvePlan(feature)).approved).toBe(true);
  });
});
