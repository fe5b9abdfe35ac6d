import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { eventually } from "../runs/scripted";
import { approvedFeature, json } from "./helpers";

/** A token of the default project with a name the test knows (its principal is `token:<name>`). */
async function namedToken(scope: "chat" | "approve" | "admin") {
  const name = uniqueName(scope);
  const res = await api("/api/tokens", { method: "POST", json: { name, scope } });
  expect(res.status).toBe(201);
  return { name, token: ((await res.json()) as { token: string }).token };
}

describe("a person's actions on tasks and plans carry who did them", () => {
  it("start, commit and discard over the API are kept on the task with the person's principal; a refused one is not", async () => {
    const { feature, scriptWorkers } = await approvedFeature(
      "## Tasks\n1. Form — the form\n2. Handler — the handler\n",
    );
    const ops = await namedToken("admin");
    const chat = await namedToken("chat");
    await scriptWorkers([{ content: "I looked at it." }]);

    expect((await api(`/api/features/${feature}/tasks/1/start`, { method: "POST", token: ops.token })).status).toBe(
      202,
    );
    // The refusal: a chat token may not discard a task, and nothing is recorded for it.
    const refused = await json(api(`/api/features/${feature}/tasks/1/discard`, { method: "POST", token: chat.token }));
    expect(refused.http).toBe(403);
    const started = await eventually(
      () => json(api(`/api/features/${feature}/tasks/1`)),
      (t) => t.status !== "in_progress" || (t.runIds ?? []).length > 0,
      "task 1's worker run",
    );
    expect(started.actions).toEqual([
      { action: "start", by: `token:${ops.name}`, kind: "person", at: expect.any(Number) },
    ]);

    const committed = await json(
      api(`/api/features/${feature}/tasks/1/commit`, {
        method: "POST",
        token: ops.token,
        json: { summary: "Nothing to change", status: "done" },
      }),
    );
    expect(committed).toMatchObject({ http: 200, committed: true });
    // The deployment's admin (the test's own token) discards task 2.
    expect((await api(`/api/features/${feature}/tasks/2/discard`, { method: "POST" })).status).toBe(200);

    const task1 = await json(api(`/api/features/${feature}/tasks/1`));
    expect(task1.actions.map((a: any) => [a.action, a.by])).toEqual([
      ["start", `token:${ops.name}`],
      ["commit", `token:${ops.name}`],
    ]);
    const task2 = await json(api(`/api/features/${feature}/tasks/2`));
    expect(task2.actions.map((a: any) => [a.action, a.by, a.kind])).toEqual([["discard", "admin", "person"]]);
  });

  it("a plan's approval and its comments name the person", async () => {
    const { feature } = await approvedFeature("## Tasks\n1. Form — the form\n");
    const reviewer = await namedToken("chat");
    const comment = await json(
      api(`/api/features/${feature}/plan/comments`, {
        method: "POST",
        token: reviewer.token,
        json: { line: 1, body: "Looks fine" },
      }),
    );
    expect(comment).toMatchObject({ http: 201, author: `token:${reviewer.name}` });
    const summary = await json(api(`/api/features/${feature}`));
    expect(summary.plan).toMatchObject({ approved: true, approvedBy: "admin" });
  });
});
