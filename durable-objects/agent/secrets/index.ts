export { makeProjectSecrets, type ProjectSecrets, type SealedSource } from "./project-secrets";
