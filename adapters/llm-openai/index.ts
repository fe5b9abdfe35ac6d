export { makeOpenAiLlm, type OpenAiLlmOptions } from "./openai-llm";
