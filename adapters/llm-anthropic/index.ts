export { makeAnthropicLlm, type AnthropicLlmOptions } from "./anthropic-llm";
