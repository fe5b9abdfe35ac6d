/**
 * One way to show a cost, wherever a person reads one (the PWA's work, spend and eval views, the
 * CLI's usage and eval tables): unknown is "not priced" (a model without a published price), nothing
 * spent is "$0" (never "$0.0000"), a fraction of a dollar keeps three significant digits, and whole
 * dollars drop their cents.
 *
 * @example
 * costLabel(null) // "not priced"
 * costLabel(0) // "$0"
 * costLabel(0.0225) // "$0.0225"
 * costLabel(1) // "$1"
 * costLabel(1.5) // "$1.50"
 */
export function costLabel(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return "not priced";
  if (usd === 0) return "$0";
  if (usd < 0.0001) return "under $0.0001";
  if (usd < 1) return `$${Number(usd.toPrecision(3))}`;
  return Number.isInteger(usd) ? `$${usd}` : `$${usd.toFixed(2)}`;
}
