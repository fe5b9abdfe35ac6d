// Vite serves any file as text with `?raw`; the examples are read this way inside workerd (no fs).
declare module "*.pnth?raw" {
  const text: string;
  export default text;
}
declare module "*.toml?raw" {
  const text: string;
  export default text;
}
