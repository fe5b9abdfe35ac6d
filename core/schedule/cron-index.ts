import type { ActorScript } from "../dsl";

/**
 * The registry instance holding the cross-project index of agents with cron behaviors. Not a
 * valid project slug, so no project's registry can be this one.
 */
export const cronIndexName = "__cron-index";

export interface CronEntry {
  /** `<talent>/<behavior>` */
  behavior: string;
  cron: string;
}

/**
 * The cron behaviors of a script, as the index the Cron Trigger reads holds them.
 * @example
 * cronBehaviorsOf(script); // [{ behavior: "review/nightly", cron: "0 2 * * *" }]
 */
export function cronBehaviorsOf(script: ActorScript | null | undefined): CronEntry[] {
  return (script?.talents ?? []).flatMap((t) =>
    t.behaviors.flatMap((b) =>
      b.mode !== "active" && b.trigger?.kind === "cron"
        ? [{ behavior: `${t.name}/${b.name}`, cron: b.trigger.cron }]
        : [],
    ),
  );
}
