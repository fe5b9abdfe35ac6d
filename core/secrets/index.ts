export {
  makeSecretCipher,
  minSecretsKeyLength,
  SecretsKeyError,
  shortFingerprint,
  type SealedSecret,
  type SecretCipher,
} from "./cipher";
export {
  grantNameSchema,
  hostOf,
  maxProjectSecrets,
  modelBaseUrlRefusal,
  maxSecretValueBytes,
  projectSecretNameSchema,
  secretValueInputSchema,
} from "./names";
export {
  implicitGrant,
  projectSecretRefusal,
  readDeploymentSecret,
  type ProjectSecretNames,
  type SecretUse,
} from "./sources";
