// Values vitest.config.ts hands to the tests (`inject("fuzzSeed")`).
declare module "vitest" {
  export interface ProvidedContext {
    /** FUZZ_SEED of the shell, or "" for the fuzz's own seed. */
    fuzzSeed: string;
    /** test/faults: FAULT_SEED and FAULT_RUNS. */
    faultSeed: string;
    faultRuns: string;
    /** FUZZ_RUNS of the shell: cases per route, or "" for the default. */
    fuzzRuns: string;
  }
}
export {};
