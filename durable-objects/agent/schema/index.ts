export * from "./chat";
export * from "./memory";
export * from "./bus";
export * from "./gateways";
export * from "./workflows";
