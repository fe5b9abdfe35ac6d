export { makeHashedEmbedder, type HashedEmbedderOptions } from "./hashed-embedder";
