export { makeWorkersAiLlm, type WorkersAiBinding, type WorkersAiLlmOptions } from "./workers-ai-llm";
