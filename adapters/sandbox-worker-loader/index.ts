export { makeWorkerLoaderSandbox } from "./runner";
