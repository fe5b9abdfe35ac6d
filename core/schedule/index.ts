export { parseCron, cronMatches, nextCronAt, type CronSpec } from "./cron";
export { retryDelayMs, retryBaseMs, retryCapMs, defaultRetryMax } from "./backoff";
export { cronBehaviorsOf, cronIndexName, type CronEntry } from "./cron-index";
