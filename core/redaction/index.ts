export {
  makeSecretDetector,
  minRedactedLength,
  redactedMark,
  type NamedSecret,
  type SecretDetector,
  type SecretForm,
  type SecretMatch,
} from "./detector";
