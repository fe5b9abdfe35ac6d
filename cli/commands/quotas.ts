// `pantheon quotas show | set | ceiling` (also `pantheon usage`): daily caps (tokens and US dollars per
// UTC day) of the current project and its agents, and what each spent today.
import { UsageError } from "../client.ts";
import { text, type Command, type Context, type Options } from "../command.ts";
import { printJson, table } from "../format.ts";
import { costLabel } from "../../core/models/cost-label.ts";
import { need } from "../arguments.ts";

interface Spend {
  tokens: number;
  usd: number;
}
interface Caps {
  tokensPerDay?: number;
  usdPerDay?: number;
}
interface QuotaReport {
  project: { name: string; own: Caps; ceiling: Caps; effective: Caps; used: Spend; day: string; resetsAt: string };
  agents: { name: string; limits: Caps; used: Spend }[];
}

/** `1200 / 5000 tokens`, `$0.012 / $1`, `1200 tokens` when there is no cap. */
function against(used: Spend, caps: Caps): string[] {
  return [
    caps.tokensPerDay !== undefined ? `${used.tokens} / ${caps.tokensPerDay}` : `${used.tokens}`,
    caps.usdPerDay !== undefined ? `${costLabel(used.usd)} / ${costLabel(caps.usdPerDay)}` : costLabel(used.usd),
  ];
}

const capsText = (caps: Caps) =>
  [
    caps.tokensPerDay !== undefined ? `${caps.tokensPerDay} tokens` : "",
    caps.usdPerDay !== undefined ? costLabel(caps.usdPerDay) : "",
  ]
    .filter(Boolean)
    .join(", ");

const capOptions: Options = {
  "tokens-per-day": { type: "string", help: "tokens (input + output) per UTC day; 'none' removes the cap" },
  "usd-per-day": {
    type: "string",
    help: "US dollars per UTC day, priced by the model that answered; 'none' removes the cap",
  },
};

/** The caps the options name: a number sets one, `none` removes it (null), absent keeps it. */
function capsFrom(context: Context, family: string): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [option, field] of [
    ["tokens-per-day", "tokensPerDay"],
    ["usd-per-day", "usdPerDay"],
  ] as const) {
    const value = text(context.values, option);
    if (value === undefined) continue;
    const number = Number(value);
    if (value !== "none" && (!value.trim() || !Number.isFinite(number) || number < 0))
      throw new UsageError(`--${option} takes a number or 'none', got '${value}'`, family);
    out[field] = value === "none" ? null : number;
  }
  if (!Object.keys(out).length)
    throw new UsageError("name --tokens-per-day and/or --usd-per-day (a number, or 'none' to remove the cap)", family);
  return out;
}

function print(report: QuotaReport): void {
  const { project } = report;
  console.log(`Project ${project.name}, ${project.day} (UTC; resets ${project.resetsAt})`);
  const rows = [
    [`project ${project.name}`, ...against(project.used, project.effective)],
    ...report.agents.map((a) => [a.name, ...against(a.used, a.limits)]),
  ];
  console.log(table(["WHO", "TOKENS TODAY", "USD TODAY"], rows));
  const ceiling = capsText(project.ceiling);
  if (ceiling) console.log(`The deployment's ceiling for this project: ${ceiling}.`);
}

const show = {
  name: "show",
  aliases: ["list"],
  summary: "today's spend of the project and each agent, against their daily caps",
  usage: [""],
  async run(context: Context) {
    const report = await context.client.request<QuotaReport>("GET", "/api/quotas");
    if (context.json) return printJson(report);
    print(report);
  },
};

export const quotas: Command = {
  name: "quotas",
  summary: "daily caps (tokens, US dollars) of the project and its agents, and today's spend",
  defaultAction: "show",
  actions: [
    show,
    {
      name: "set",
      summary:
        "set the project's daily caps (project admin, within the deployment's ceiling), or one agent's with --agent",
      usage: ["[--agent <name>] --tokens-per-day <n|none> --usd-per-day <d|none>"],
      options: { agent: { type: "string", help: "set this agent's own caps instead of the project's" }, ...capOptions },
      async run(context) {
        const caps = capsFrom(context, "quotas");
        const agent = text(context.values, "agent");
        if (agent) {
          const body = await context.client.request<{ name: string; limits: Caps }>(
            "PUT",
            `/api/quotas/agents/${encodeURIComponent(agent)}`,
            { json: caps },
          );
          if (context.json) return printJson(body);
          return console.log(
            `Agent ${body.name}: ${capsText(body.limits) || "no daily caps"}${capsText(body.limits) ? " per UTC day" : ""}.`,
          );
        }
        const report = await context.client.request<QuotaReport>("PUT", "/api/quotas", { json: caps });
        if (context.json) return printJson(report);
        print(report);
      },
    },
    {
      name: "ceiling",
      summary: "set a project's ceiling, which its own admin cannot raise (the deployment's admin token only)",
      usage: ["<project> --tokens-per-day <n|none> --usd-per-day <d|none>"],
      options: capOptions,
      async run(context) {
        const slug = need(context.args, 0, "project's slug", "quotas");
        const report = await context.client.request<QuotaReport>(
          "PUT",
          `/api/projects/${encodeURIComponent(slug)}/quota-ceiling`,
          { json: capsFrom(context, "quotas") },
        );
        if (context.json) return printJson(report);
        print(report);
      },
    },
  ],
};

/** `pantheon usage`: the same report as `pantheon quotas show`. */
export const usage: Command = {
  name: "usage",
  summary: "today's spend of the project and each agent (= pantheon quotas show)",
  actions: [{ ...show, name: "" }],
};
