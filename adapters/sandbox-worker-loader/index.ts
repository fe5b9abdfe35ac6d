export { makeWorkerLoaderSandbox, type WorkerLoaderSlice } from "./runner";
