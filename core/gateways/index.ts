export * from "./telegram";
export * from "./email";
