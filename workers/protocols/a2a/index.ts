// The A2A door of every agent (card + JSON-RPC); the mapping itself is core/protocols/a2a.
export { a2aRoutes } from "./routes";
