export * from "./profile";
export * from "./from-script";
