export * from "./suite";
export * from "./grade";
export * from "./report";
