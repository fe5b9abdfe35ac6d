import type { DoctorCheck, DoctorFacts } from "./facts";

/** The Cron Trigger's last tick: cron behaviors wake only on it. */
export function cronCheck(facts: DoctorFacts): DoctorCheck {
  const prod = facts.deployment === "production";
  const age = facts.lastCronTick === null ? null : facts.now - facts.lastCronTick;
  return age === null
    ? {
        id: "cron",
        area: "cron",
        status: "warn",
        message: "no Cron Trigger tick seen yet (cron behaviors wake only on it; it fires every minute once deployed)",
        fix: prod
          ? 'keep [env.production.triggers] crons = ["* * * * *"] in wrangler.toml, then npm run deploy'
          : `locally: curl "${facts.origin}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*"`,
      }
    : age > 5 * 60_000
      ? {
          id: "cron",
          area: "cron",
          status: prod ? "problem" : "warn",
          message: `the last Cron Trigger tick was ${Math.round(age / 60_000)} min ago (it fires every minute)`,
          fix: 'check [env.production.triggers] crons = ["* * * * *"] in wrangler.toml, then npm run deploy',
        }
      : {
          id: "cron",
          area: "cron",
          status: "ok",
          message: `the Cron Trigger last fired ${Math.round(age / 1000)} s ago`,
        };
}
