export * from "./scopes";
export * from "./tokens";
