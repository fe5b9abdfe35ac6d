export * from "./chat";
