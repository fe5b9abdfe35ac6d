import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { eventually } from "../runs/scripted";
import { approvedFeature, json, plannerAndWorkers } from "../work/helpers";
import { device, notices, recorded, until } from "./devices";

// A feature's work notifies the people who may act on it (approve scope) through the push queue:
// a task blocked on a question (cleared once answered), run-all stopped, and the feature done.

const writes = (path: string, summary: string) => [
  { toolCalls: [{ name: "fs.write", arguments: { path, content: `${summary}\n` } }] },
  { toolCalls: [{ name: "task.commit", arguments: { summary } }] },
  { content: `${summary}: done` },
];

describe("work notices", () => {
  it("a blocked task and run-all stopping notify an approver, answering clears it, and the feature done notifies; never a chat-scope person", async () => {
    const f = await approvedFeature("## Tasks\n1. Ask — ask first\n");
    const approver = await device("approve");
    const chatter = await device("chat");
    await f.scriptWorkers([
      { toolCalls: [{ name: "task.block", arguments: { question: "Which colour? secret-colour-token" } }] },
      ...writes("ask.txt", "blue it is"),
    ]);
    expect((await json(api(`/api/features/${f.feature}/run-all`, { method: "POST" }))).http).toBe(202);
    const told = await until(
      () => notices(approver),
      (n) => n.some((x) => x.tag === `feature:${f.feature}`) && n.some((x) => x.tag === `task:${f.feature}:1`),
      "the blocked task's and the stopped run-all's notices",
    );
    expect(told).toContainEqual({
      title: `${f.feature}: task 1 (ask) is blocked`,
      body: "It waits for your answer.",
      url: `/#/features/${f.feature}/tasks/1`,
      tag: `task:${f.feature}:1`,
    });
    expect(told).toContainEqual({
      title: `${f.feature}: run-all stopped`,
      body: "It stopped at task 1 and needs a person.",
      url: `/#/features/${f.feature}`,
      tag: `feature:${f.feature}`,
    });
    // One notice for the question: the worker's waiting task.block call is not told again as an approval.
    expect(told.filter((x) => x.tag.startsWith("approval:"))).toEqual([]);
    // What the worker asked is not in any notice: it is read in the app.
    expect(JSON.stringify(told)).not.toContain("secret-colour-token");

    const answered = await json(
      api(`/api/features/${f.feature}/tasks/ask/answer`, {
        method: "POST",
        token: approver.token,
        json: { answer: "blue" },
      }),
    );
    expect(answered.http).toBe(200);
    await eventually(
      () => json(api(`/api/features/${f.feature}`)),
      (s) => s.status === "done",
      "the feature done",
    );
    const after = await until(
      () => notices(approver),
      (n) => n.some((x) => x.clear) && n.some((x) => x.title === `${f.feature} is done`),
      "the clearing and done notices",
    );
    expect(after).toContainEqual({ title: "", body: "", url: "/", tag: `task:${f.feature}:1`, clear: true });
    expect(after).toContainEqual({
      title: `${f.feature} is done`,
      body: "Every task is done.",
      url: `/#/features/${f.feature}`,
      tag: `feature:${f.feature}`,
    });
    // Sent in the same batches as the approver's: a chat-scope person got none of them.
    expect(await recorded(chatter)).toEqual([]);
  });

  it("the planner's question notifies an approver like an approval, with a tag per question, cleared once answered; never a chat-scope person", async () => {
    const { planner } = await plannerAndWorkers();
    const feature = uniqueName("ask").slice(0, 40);
    const created = await api("/api/features", {
      method: "POST",
      json: { name: feature, title: "Asked", orchestrator: planner.name, maxQuestions: 2 },
    });
    expect(created.status).toBe(201);
    const approver = await device("approve");
    const chatter = await device("chat");
    await planner.script([
      { toolCalls: [{ name: "plan.ask", arguments: { feature, question: "Which browsers? secret-browser-token" } }] },
      { toolCalls: [{ name: "plan.ask", arguments: { feature, question: "Which screens?" } }] },
      { content: "I will plan once you answer." },
    ]);
    expect((await planner.send("Plan the feature")).status).toBe(200);
    const inbox = (await json(api("/api/approvals"))).approvals.filter((a: any) => a.feature === feature);
    expect(inbox).toHaveLength(2);
    const told = await until(
      () => notices(approver),
      (n) => n.length === 2,
      "a notice per question",
    );
    expect(told).toEqual(
      inbox.map((q: any) => ({
        title: `${feature}: the planner asks you`,
        body: "A question waits for your answer.",
        url: "/#/approvals",
        tag: `question:${feature}:${q.callId}`,
      })),
    );
    expect(JSON.stringify(told)).not.toContain("secret-browser-token");

    // Answered, its notice clears on every device; the other question's stands.
    await planner.script([{ content: "Noted." }]);
    const answered = await json(
      api(`/api/features/${feature}/questions/${inbox[0].callId}/answer`, {
        method: "POST",
        token: approver.token,
        json: { answer: "evergreen" },
      }),
    );
    expect(answered.http).toBeLessThan(300);
    const after = await until(
      () => notices(approver),
      (n) => n.length === 3,
      "the clearing notice",
    );
    expect(after[2]).toEqual({
      title: "",
      body: "",
      url: "/",
      tag: `question:${feature}:${inbox[0].callId}`,
      clear: true,
    });
    expect(await recorded(chatter)).toEqual([]);
  });
});
