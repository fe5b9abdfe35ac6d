// The agent's daily caps: its own counter and its lease of the project's (core/quotas).
export { makeQuotaKeeper, type LeaseSource, type QuotaKeeper } from "./keeper";
export { withQuota } from "./port";
