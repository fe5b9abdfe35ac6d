export { chooseLlm, providerFacts, type ChosenLlm, type LlmConfig, type NamedProviderConfig } from "./choose";
