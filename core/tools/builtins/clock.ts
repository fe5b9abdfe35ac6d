import type { Clock } from "../../ports";
import type { BuiltinTool } from "../registry";
import { builtinSpec } from "./catalog";

/**
 * `clock.now`: the current time as ISO 8601 (UTC) and epoch milliseconds.
 * @example
 * const { spec, implementation } = makeClockTool({ now: () => 0 });
 * await implementation({}, ctx); // '{"iso":"1970-01-01T00:00:00.000Z","epochMs":0}'
 */
export function makeClockTool(clock: Clock): BuiltinTool {
  return {
    spec: builtinSpec("clock.now"),
    implementation: async () => {
      const epochMs = clock.now();
      return JSON.stringify({ iso: new Date(epochMs).toISOString(), epochMs });
    },
  };
}
