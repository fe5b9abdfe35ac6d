export * from "./scopes";
export * from "./tokens";
export * from "./principal";
