import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compileScript, printScript } from "../../core/dsl";
import worker from "../../workers/index";
import { api, createAgent } from "../api/client";
import { putScript } from "../scripts/helpers";
import { device, notices, recorded, until } from "./devices";

// `:notify` on a behavior (docs/push.md): its result is pushed, through the agent's push queue and
// the push-service double, to the people who may chat with the agent; a behavior without it is not.

const behavior = (name: string, extra: string, result: string) =>
  `(behavior "${name}" :persistent (cron "10 4 * * *") ${extra} (goal (input) "Write the ${name}") (plan (input ctx) (message "assistant" :content "${result}")))`;

const scriptOf = (agent: string) =>
  `(actor "${agent}" (description "Reports") (talent "work" ${behavior("report", ":notify", "The weekly report is ready: 3 new issues.")} ${behavior("tidy", "", "Tidied the shelves.")}))`;

describe("a behavior's result", () => {
  it("the :notify keyword compiles, prints and compiles again the same; a behavior without it has none", () => {
    const compiled = compileScript(scriptOf("reports"));
    const [report, tidy] = compiled.script.talents[0]!.behaviors;
    expect(report).toMatchObject({ name: "report", notify: true });
    expect(tidy).not.toHaveProperty("notify");
    const printed = printScript(compiled.script);
    expect(printed).toContain(":notify");
    expect(compileScript(printed).script).toEqual(compiled.script);
  });

  it("refuses :notify given twice, naming the option; control: once is fine", () => {
    expect(compileScript(scriptOf("reports")).script.talents[0]!.behaviors[0]).toMatchObject({ notify: true });
    expect(() => compileScript(scriptOf("reports").replace(":notify", ":notify :notify"))).toThrow(
      "option :notify is given twice in (behavior …)",
    );
  });

  it("a scheduled run of a :notify behavior pushes its result line to a person's phone; the one without :notify pushes nothing", async () => {
    const agent = await createAgent();
    const put = await putScript(agent.name, scriptOf(agent.name));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const ana = await device("chat");
    // The minute both behaviors' cron names: both run, one after the other.
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.UTC(2031, 4, 6, 4, 10), cron: "* * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const runs = ((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs;
    expect(runs.map((r: any) => [r.trigger, r.status]).sort()).toEqual([
      ["behavior:work/report", "completed"],
      ["behavior:work/tidy", "completed"],
    ]);
    const got = await until(
      () => notices(ana),
      (n) => n.length > 0,
      "the report's notice",
    );
    expect(got).toEqual([
      {
        title: `${agent.name}: report`,
        body: "The weekly report is ready: 3 new issues.",
        url: `/#/agents/${agent.name}/chat?session=${runs.find((r: any) => r.trigger === "behavior:work/report").sessionId}`,
        tag: `behavior:${agent.name}:report`,
      },
    ]);
    expect((await recorded(ana)).length).toBe(1);
  });

  it("a person's message an active behavior took: its reply notifies them like any reply", async () => {
    const agent = await createAgent();
    const greet = `(behavior "greet" :active (goal (input) "Greet") (plan (input ctx) (message "assistant" :content "Hello from greet")))`;
    const put = await putScript(agent.name, `(actor "${agent.name}" (description "Greets") (talent "work" ${greet}))`);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const ana = await device("chat");
    const sent = (await (
      await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "hi" }, token: ana.token })
    ).json()) as any;
    expect(sent.reply.content).toBe("Hello from greet");
    const got = await until(
      () => notices(ana),
      (n) => n.length > 0,
      "the reply notice",
    );
    expect(got).toEqual([
      {
        title: `${agent.name} replied`,
        body: "Hello from greet",
        url: `/#/agents/${agent.name}/chat?session=${sent.sessionId}`,
        tag: `reply:${sent.sessionId}`,
      },
    ]);
  });
});
