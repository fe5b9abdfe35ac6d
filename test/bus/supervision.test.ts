// Supervised children: the spawn site names the policy; failed runs toward the goal are restarted within
// the limit (traced), one over the limit is not (traced), and a child whose goal is done is archived:
// out of the graph, its history readable.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compileScript, printScript } from "../../core/dsl";
import { agentObject, insideAgent } from "../scripts/helpers";
import { modelCalls, project, script } from "./harness";

const childScript = (name: string, model: string) =>
  `(actor "${name}" (description "Works toward one goal.") (model :provider "openai" :name "${model}"))`;

/** A boss that spawns `child` with `supervise`, then answers `final`; the child's model answers `childSteps` in turn. */
async function supervising(supervise: Record<string, unknown>, childSteps: unknown[], final: string) {
  const p = project();
  const [bossModel, childModel] = [`sup-boss-${crypto.randomUUID()}`, `sup-child-${crypto.randomUUID()}`];
  await p.agent("boss");
  const put = await p.api("/api/agents/boss/script", {
    method: "PUT",
    headers: { "content-type": "text/x-pantheon" },
    body: `(actor "boss" (description "Delegates.") (model :provider "openai" :name "${bossModel}") (spawn :allowed true :quota 2))`,
  });
  expect(put.status).toBe(200);
  await script(bossModel, [
    {
      toolCalls: [
        {
          name: "agent.spawn",
          arguments: { script: childScript("worker", childModel), goal: "Find the answer.", supervise },
        },
      ],
    },
    { content: final },
  ]);
  await script(childModel, childSteps);
  const started = await p.chat("boss", "Get the answer from a worker.");
  // Restart alarms are due at once (a 100 ms backoff): run the boss's alarms until the run settles.
  const run = await p.until(async () => {
    await runDurableObjectAlarm(agentObject("boss", p.name));
    const got = await p.json(`/api/agents/boss/runs/${started.runId}`);
    return ["completed", "failed"].includes(got.run.status) ? got : null;
  }, "the boss's run to settle");
  const names = (run.trace as { name: string; data: any }[]).filter((t) => t.name.startsWith("child_"));
  return { p, run, names, bossModel };
}

describe("supervised children", () => {
  it("a child that fails twice is restarted within its limit, reaches its goal, and is archived: out of the graph, history readable", async () => {
    const { p, run, names, bossModel } = await supervising(
      { restart: "on-failure", maxRestarts: 2, backoff: "100ms", onDone: "archive" },
      [
        { status: 400, error: "first try broke" },
        { status: 400, error: "second try broke" },
        { content: "The answer is 42." },
      ],
      "The worker says 42.",
    );
    expect(run.run.status).toBe("completed");
    expect(names.map((t) => t.name)).toEqual([
      "child_supervised",
      "child_restart_scheduled",
      "child_restarted",
      "child_restart_scheduled",
      "child_restarted",
      "child_done",
      "child_archived",
    ]);
    expect(
      names.filter((t) => t.name === "child_restart_scheduled").map((t) => [t.data.restart, t.data.maxRestarts]),
    ).toEqual([
      [1, 2],
      [2, 2],
    ]);
    // The boss's model got the child's answer as the tool's result, not an error.
    const report = (await modelCalls(bossModel))[1].messages.find((m: any) => m.role === "tool");
    expect(report.content).toContain("The answer is 42.");
    const worker = await p.json("/api/agents/worker");
    expect(worker.archivedAt).toEqual(expect.any(Number));
    expect(worker.connections).toEqual([]);
    expect((await p.json("/api/agents/boss")).connections).toEqual([]);
    // Three runs toward the goal, each asked the goal, all still readable.
    const runs = (await p.json("/api/agents/worker/runs?limit=10")).runs;
    expect(runs.map((r: any) => r.status)).toEqual(["completed", "failed", "failed"]);
    const { sessions } = await p.json("/api/agents/worker/sessions");
    const said = (
      await Promise.all(
        sessions.map(async (s: any) => (await p.json(`/api/agents/worker/messages?session=${s.id}&limit=50`)).messages),
      )
    ).flat();
    expect(said.filter((m: any) => m.role === "user" && m.content === "Find the answer.")).toHaveLength(3);
    expect(said.some((m: any) => m.role === "assistant" && m.content === "The answer is 42.")).toBe(true);
  });

  it("a third failure over a limit of two restarts is not restarted, and the boss is told why", async () => {
    const { p, run, names, bossModel } = await supervising(
      { restart: "on-failure", maxRestarts: 2, backoff: "100ms", onDone: "archive" },
      [
        { status: 400, error: "one" },
        { status: 400, error: "two" },
        { status: 400, error: "three" },
      ],
      "The worker could not do it.",
    );
    expect(run.run.status).toBe("completed");
    const last = names.at(-1)!;
    expect(last).toMatchObject({
      name: "child_not_restarted",
      data: { failures: 3, maxRestarts: 2, reason: expect.stringContaining("restart limit reached") },
    });
    expect(names.filter((t) => t.name === "child_restarted")).toHaveLength(2);
    const report = (await modelCalls(bossModel))[1].messages.find((m: any) => m.role === "tool");
    expect(report.content).toContain("not restarted: restart limit reached");
    // Not done: not archived (only a child whose goal is done is).
    expect((await p.json("/api/agents/worker")).archivedAt).toBeNull();
    expect((await p.json("/api/agents/boss")).connections).toEqual(["worker"]);
  });

  it("restart never: the first failure goes straight to the boss; a policy that is not one is refused by name", async () => {
    const never = await supervising(
      { restart: "never", onDone: "keep" },
      [{ status: 400, error: "broke" }],
      "Oh well.",
    );
    expect(never.names.map((t) => t.name)).toEqual([]);
    expect((await modelCalls(never.bossModel))[1].messages.find((m: any) => m.role === "tool").content).toContain(
      "broke",
    );
    // A choice outside the tool's schema is refused by the schema gate; a backoff that is no duration by the spawner.
    const badChoice = await supervising({ restart: "always" }, [], "Refused.");
    const gate = badChoice.run.trace.find((t: any) => t.name === "gate_decisions" && t.data.tool === "agent.spawn");
    expect(gate.data.refused.reason).toContain("supervise.restart");
    const badBackoff = await supervising({ restart: "on-failure", backoff: "soon" }, [], "Refused.");
    const refused = badBackoff.run.trace.find((t: any) => t.name === "bus_refused");
    expect(refused.data.error).toContain("supervise: backoff: a whole number followed by ms, s, m, h or d");
    for (const { p } of [badChoice, badBackoff]) expect((await p.api("/api/agents/worker")).status).toBe(404);
  });

  it("a child still working when its time to live ends is stopped and archived, and the boss is told", async () => {
    const hold = `ttl-${crypto.randomUUID()}`;
    const { p, names, bossModel } = await supervising(
      { ttl: "1s", onDone: "keep" },
      [{ content: "Too late.", hold }],
      "It ran out of time.",
    );
    expect(names.map((t) => t.name)).toEqual(["child_supervised", "child_ttl_ended", "child_archived"]);
    expect((await modelCalls(bossModel))[1].messages.find((m: any) => m.role === "tool").content).toContain(
      "did not reach its goal within its time to live (1s)",
    );
    expect((await p.json("/api/agents/worker")).archivedAt).toEqual(expect.any(Number));
    // Its unfinished run toward the goal is cancelled (the question was given up, a cancel sent).
    await p.until(
      async () => (await p.json("/api/agents/worker/runs?limit=5")).runs[0]?.status === "cancelled",
      "the child's run to be cancelled",
    );
    await fetch(`${(await import("../scripts/helpers")).doubleUrl()}/__release/${hold}`, { method: "POST" });
  });

  it("an eviction between a failure's record and its restart alarm loses no restart: the agent arms it again as it starts, once", async () => {
    const p = project();
    await p.agent("boss");
    const boss = agentObject("boss", p.name);
    const record = {
      runId: "r1",
      callId: "c1",
      child: "w",
      goal: "g",
      policy: { restart: "on-failure", maxRestarts: 2, onDone: "keep" },
      failures: 1,
      spawnedAt: Date.now(),
      restartAt: Date.now() + 60_000,
    };
    await insideAgent(boss, (_instance: any, state: DurableObjectState) =>
      state.storage.kv.put("supervise:r1:c1", record),
    );
    // The first call after an abort() may still meet the reset object: read again until it answers.
    const childAlarms = async (): Promise<any[]> => {
      for (;;) {
        try {
          return await insideAgent(agentObject("boss", p.name), async (instance: any) =>
            (await instance.listSchedules())
              .filter((s: any) => s.callback === "onChildAlarm")
              .map((s: any) => s.payload),
          );
        } catch (error) {
          if (!String(error).includes("abort()")) throw error;
        }
      }
    };
    for (let restart = 0; restart < 2; restart++) {
      await expect(
        insideAgent(agentObject("boss", p.name), (_instance: any, state: DurableObjectState) => state.abort()),
      ).rejects.toThrow();
      await p.until(async () => (await childAlarms()).length > 0, "the restart alarm to be armed again");
    }
    expect(await childAlarms()).toEqual([{ runId: "r1", callId: "c1", kind: "restart", attempt: 1 }]);
  });

  it("the spawn site in a script names the policy, and prints back the same", () => {
    const source = `(actor "planner" (description "d") (spawn :allowed true :quota 1)
      (talent "work" (behavior "delegate" :active (goal (input) (get input "text"))
        (plan (input ctx) (spawn "scout" :goal (get input "text") :restart :on-failure :max-restarts 2 :backoff "5s" :ttl "1h" :on-done "archive")))))`;
    const { script: compiled } = compileScript(source);
    const step = compiled.talents[0]!.behaviors[0]!.plan.steps[0]!;
    expect(step).toMatchObject({
      kind: "spawn",
      supervise: { restart: "on-failure", maxRestarts: 2, backoff: "5s", ttl: "1h", onDone: "archive" },
    });
    expect(compileScript(printScript(compiled)).script).toEqual(compiled);
    expect(() => compileScript(source.replace(":max-restarts 2", ":max-restarts 20"))).toThrow(
      /maxRestarts|max-restarts/,
    );
  });
});
