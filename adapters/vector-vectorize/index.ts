export { makeVectorizeIndex, type VectorizeIndexOptions, type VectorizeLike } from "./vectorize-index";
