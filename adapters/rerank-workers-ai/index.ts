export { makeWorkersAiReranker, type AiRerankLike, type WorkersAiRerankerOptions } from "./workers-ai-reranker";
