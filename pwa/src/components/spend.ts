import { html, nothing } from "lit";
import { costLabel } from "../../../core/models/cost-label";
import type { Agent } from "../api";

type Spend = { tokens: number; usd: number };
type Caps = { tokensPerDay?: number; usdPerDay?: number };

const reached = (used: Spend, caps: Caps) =>
  (caps.tokensPerDay !== undefined && used.tokens >= caps.tokensPerDay) ||
  (caps.usdPerDay !== undefined && used.usd >= caps.usdPerDay);

/** `1200 of 5000 tokens · $0.012 of $1 today`: what was spent, against each cap there is. */
function spendText(used: Spend, caps: Caps): string {
  const tokens =
    caps.tokensPerDay !== undefined ? `${used.tokens} of ${caps.tokensPerDay} tokens` : `${used.tokens} tokens`;
  const dollars =
    caps.usdPerDay !== undefined ? `${costLabel(used.usd)} of ${costLabel(caps.usdPerDay)}` : costLabel(used.usd);
  return `${tokens} · ${dollars} today`;
}

/** An agent's spend today (UTC) against its own caps, and when they reset; a reached cap is said plainly. */
export function agentSpend(spend: Agent["spend"]) {
  if (!spend) return nothing;
  const full = reached(spend.used, spend.limits);
  return html`<p class="small line spend" data-scope="agent"><span>Spend: <strong>${spendText(spend.used, spend.limits)}</strong></span>${full ? html`<span class="badge bad">cap reached</span>` : nothing}</p>
    ${full ? html`<p class="small muted">Model calls are refused until ${new Date(spend.resetsAt).toLocaleString()} (UTC midnight).</p>` : nothing}`;
}

/** The project's spend today: its agents' together, against the project's caps (each profile carries them). */
export function projectSpend(agents: readonly Agent[]) {
  if (!agents.length) return nothing;
  const used = agents.reduce(
    (sum, a) => ({ tokens: sum.tokens + (a.spend?.used.tokens ?? 0), usd: sum.usd + (a.spend?.used.usd ?? 0) }),
    { tokens: 0, usd: 0 },
  );
  const caps = agents.find((a) => a.projectQuota)?.projectQuota?.limits ?? {};
  const full = reached(used, caps);
  return html`<p class="small line spend" data-scope="project"><span>Project spend: <strong>${spendText(used, caps)}</strong></span>${full ? html`<span class="badge bad">cap reached</span>` : nothing}</p>`;
}
