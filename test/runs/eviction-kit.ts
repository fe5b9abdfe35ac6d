import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";

/**
 * An eviction as Cloudflare does it (a deploy, a runtime restart, the inactivity timeout): the
 * instance is dropped with whatever it was doing. Nothing calls the agent afterwards; only its own
 * alarm (the fiber's keep-alive) may wake it.
 */
export async function evict(agent: string) {
  const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent}`));
  await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evicted"))).rejects.toThrow();
}

/** Fires the agent's alarm until the run is finished (each alarm is one wake-up with no request). */
export async function wakeByAlarmUntilDone(agent: string, runId: string) {
  // The evicted agent has an alarm of its own (the run watchdog): that is what wakes it.
  const evicted = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent}`));
  expect(await runInDurableObject(evicted, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
  for (let i = 0; i < 100; i++) {
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent}`));
    const status = await runInDurableObject(
      stub,
      (_instance, state) =>
        state.storage.sql.exec<{ status: string }>("SELECT status FROM runs WHERE id = ?", runId).one().status,
    );
    if (["completed", "failed", "cancelled"].includes(status)) return status;
    await runDurableObjectAlarm(stub);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} did not finish after 100 alarms`);
}
