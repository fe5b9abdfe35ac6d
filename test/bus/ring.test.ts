import { describe, expect, it } from "vitest";
import { project } from "./harness";

describe("a ring of agents asking each other at once", () => {
  // Every agent asks and answers at the same moment, so a message is often queued while the agent's
  // previous send is still under way: it must leave with that flush, not wait for a later one.
  it("every ask in a ring of ten is answered, round after round, with no timeout", async () => {
    const p = project();
    const names = Array.from({ length: 10 }, (_, i) => `ring-${i}`);
    for (const name of names) await p.agent(name);
    for (const [i, name] of names.entries()) await p.connect(name, [names[(i + 1) % names.length]!]);
    for (let round = 0; round < 3; round++) {
      const started = await Promise.all(
        names.map((name, i) => p.chat(name, `/ask ${names[(i + 1) % names.length]} round ${round}`)),
      );
      const runs = await Promise.all(started.map((s, i) => p.settled(names[i]!, s.runId)));
      for (const run of runs) {
        expect(run.run.status).toBe("completed");
        expect(run.trace.some((t) => t.name === "bus_timeout")).toBe(false);
      }
    }
  });
});
