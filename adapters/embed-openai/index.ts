export { makeOpenAiEmbedder, type OpenAiEmbedderOptions } from "./openai-embedder";
