export { dayOf, quotaNow, resetsAt } from "./day";
export {
  addSpend,
  applyQuotaPatch,
  capsOf,
  hasCaps,
  noSpend,
  quotaKeys,
  quotaPatchSchema,
  spendOf,
  tightest,
  type QuotaKey,
  type QuotaLimits,
  type ProjectQuota,
  type QuotaPatch,
  type Spend,
} from "./limits";
export {
  emptyBook,
  exclusiveTtlMs,
  grantLease,
  leaseTtlMs,
  type Lease,
  type LeaseAnswer,
  type LeaseBook,
  type LeaseRequest,
} from "./lease";
export { isQuotaExceeded, overCap, QuotaExceededError, type QuotaRefusal } from "./refusal";
