import type { Clock } from "../../ports";
import type { BuiltinTool } from "../registry";

/**
 * `clock.now`: the current time as ISO 8601 (UTC) and epoch milliseconds.
 * @example
 * const { spec, implementation } = makeClockTool({ now: () => 0 });
 * await implementation({}, ctx); // '{"iso":"1970-01-01T00:00:00.000Z","epochMs":0}'
 */
export function makeClockTool(clock: Clock): BuiltinTool {
  return {
    spec: {
      name: "clock.now",
      description: "The current date and time (UTC, ISO 8601) and epoch milliseconds.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      runtime: "builtin",
      idempotent: true,
    },
    implementation: async () => {
      const epochMs = clock.now();
      return JSON.stringify({ iso: new Date(epochMs).toISOString(), epochMs });
    },
  };
}
