export * from "./chat";
export * from "./memory";
