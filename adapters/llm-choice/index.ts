export { chooseLlm, type ChosenLlm, type LlmConfig } from "./choose";
