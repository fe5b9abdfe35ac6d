export { chooseLlm, providerFacts, type ChosenLlm, type LlmConfig } from "./choose";
