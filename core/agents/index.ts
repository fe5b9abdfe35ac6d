export * from "./profile";
