export * from "./spans";
export * from "./otlp";
