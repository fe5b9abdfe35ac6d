import type { DoctorCheck, DoctorFacts } from "./facts";

/** Whether Web Push is on: the VAPID key secret is there (docs/push.md). Off is a warning, not a problem: the PWA works without it. */
export function pushChecks(facts: DoctorFacts): DoctorCheck[] {
  if (facts.secrets.PANTHEON_VAPID_KEY && facts.bindings.PUSH === false)
    return [
      {
        id: "secret:PANTHEON_VAPID_KEY",
        area: "secrets",
        status: "problem",
        message: "PANTHEON_VAPID_KEY is set but PUSH (queue pantheon-push) is not bound: no notice leaves",
        fix: "npx wrangler queues create pantheon-push, then deploy with wrangler.toml's PUSH producer and pantheon-push consumer",
      },
    ];
  if (facts.secrets.PANTHEON_VAPID_KEY)
    return [
      {
        id: "secret:PANTHEON_VAPID_KEY",
        area: "secrets",
        status: "ok",
        message: "push notifications are on: PANTHEON_VAPID_KEY is set",
      },
    ];
  return [
    {
      id: "secret:PANTHEON_VAPID_KEY",
      area: "secrets",
      status: "warn",
      message: "push notifications are off: PANTHEON_VAPID_KEY is not set, so no phone is told an approval waits",
      fix:
        facts.deployment === "production"
          ? "npm run deploy -- --setup (makes the key), or node scripts/vapid-key.mjs | npx wrangler secret put PANTHEON_VAPID_KEY --env production"
          : "npm start makes one in .dev.vars; restart it",
    },
  ];
}
