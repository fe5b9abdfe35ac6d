export * from "./profile";
export * from "./from-script";
export * from "./outbound-check";
