// `pantheon schedules list | pause | resume`: the scheduled behaviors of an agent's script.
import { param } from "../client.ts";
import type { Action, Command } from "../command.ts";
import { printJson, table, time } from "../format.ts";
import { need } from "../arguments.ts";

const triggerText = (trigger: unknown) =>
  trigger && typeof trigger === "object"
    ? Object.entries(trigger)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")
    : String(trigger ?? "-");

export const schedules: Command = {
  name: "schedules",
  summary: "the scheduled behaviors of agents: list, pause, resume",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "an agent's scheduled behaviors (every agent's when none is named), with next and last run",
      usage: ["[<agent>]"],
      async run({ client: { api, send }, args, json }) {
        const names = args[0] ? [args[0]] : (await send(api.api.agents.$get())).agents.map((a) => a.name);
        const all = await Promise.all(
          names.map(async (name) => ({
            agent: name,
            ...(await send(api.api.agents[":name"].schedules.$get(param({ name })))),
          })),
        );
        if (json) return printJson(args[0] ? all[0] : { agents: all });
        const rows = all.flatMap(({ agent, schedules: list }) =>
          list.map((s) => [
            agent,
            `${s.talent}/${s.behavior}`,
            s.mode,
            triggerText(s.trigger),
            s.paused ? "paused" : time(s.nextRunAt),
            time(s.lastRunAt),
            s.lastStatus ?? "-",
            s.failures,
          ]),
        );
        if (!rows.length)
          return console.log(args[0] ? `${args[0]} has no scheduled behaviors.` : "No agent has scheduled behaviors.");
        console.log(
          table(["AGENT", "BEHAVIOR", "MODE", "TRIGGER", "NEXT", "LAST RUN", "LAST STATUS", "FAILURES"], rows),
        );
      },
    },
    ...(["pause", "resume"] as const).map(
      (verb): Action => ({
        name: verb,
        summary:
          verb === "pause"
            ? "stop a behavior's schedule (its state is kept)"
            : "start a paused behavior's schedule again",
        usage: ["<agent> <behavior>"],
        async run({ client: { api, send }, args, json }) {
          const name = need(args, 0, "agent", "schedules");
          const behavior = need(args, 1, "behavior (pantheon schedules list shows them)", "schedules");
          const route = api.api.agents[":name"].schedules[":behavior"][verb];
          const body = await send(route.$post(param({ name, behavior })));
          if (json) return printJson(body);
          console.log(`${verb === "pause" ? "Paused" : "Resumed"} ${name}'s ${behavior}.`);
        },
      }),
    ),
  ],
};
