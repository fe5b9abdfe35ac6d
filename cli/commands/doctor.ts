// `pantheon doctor`: what the deployment has and lacks, each problem with the command that fixes it.
import type { Command } from "../command.ts";
import { printJson, table } from "../format.ts";

const label = { ok: "ok", warn: "WARN", problem: "PROBLEM" } as const;
const order = { problem: 0, warn: 1, ok: 2 } as const;

export const doctor: Command = {
  name: "doctor",
  summary: "check the deployment (bindings, secrets, models, migrations, cron, gateways); exit 1 on a problem",
  actions: [
    {
      name: "",
      summary: "check the deployment (bindings, secrets, models, migrations, cron, gateways); exit 1 on a problem",
      usage: ["[--all]"],
      options: { all: { type: "boolean", help: "also list the checks that passed" } },
      /** Needs an admin token (GET /api/health?detail=1). Never prints a secret value: the server reports presence only. */
      async run({ client: { api, send, url }, values, json }) {
        const report = await send(api.api.health.$get({ query: { detail: "1" } }));
        if (json) {
          printJson(report);
          return report.ok ? 0 : 1;
        }
        const { ok, warn, problem } = report.summary;
        console.log(
          `Pantheon ${report.version} at ${url} (${report.deployment}): ${ok} ok, ${warn} warning${warn === 1 ? "" : "s"}, ${problem} problem${problem === 1 ? "" : "s"}`,
        );
        const shown = report.checks
          .filter((c) => values.all || c.status !== "ok")
          .sort((a, b) => order[a.status] - order[b.status]);
        for (const check of shown) {
          console.log(`\n${label[check.status].padEnd(7)}  ${check.id}\n         ${check.message}`);
          if (check.fix && check.status !== "ok") console.log(`         fix: ${check.fix}`);
        }
        if (report.agents.length) {
          console.log(
            `\n${table(
              ["AGENT", "ANSWERS WITH", "STATUS", "WHY"],
              report.agents.map((a) => [
                a.name,
                `${a.resolvedModel.provider}:${a.resolvedModel.name}`,
                a.resolvedModel.status,
                a.resolvedModel.reason,
              ]),
            )}`,
          );
        }
        console.log(report.ok ? "\nNo problems." : "\nFix the problems above, then run pantheon doctor again.");
        return report.ok ? 0 : 1;
      },
    },
  ],
};
