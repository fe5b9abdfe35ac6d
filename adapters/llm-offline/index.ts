export { makeOfflineLlm } from "./offline-llm";
