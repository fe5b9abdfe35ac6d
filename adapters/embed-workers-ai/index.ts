export { makeWorkersAiEmbedder, type AiLike, type WorkersAiEmbedderOptions } from "./workers-ai-embedder";
