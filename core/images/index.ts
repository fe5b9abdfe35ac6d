export { imageTypes, sniffImage, type ImageType, type SniffedImage } from "./sniff";
export {
  allowedImageTypes,
  checkImage,
  describeImage,
  imageIdOf,
  imageIdPattern,
  imageRefOf,
  maxImageBytes,
  maxImageSide,
  maxImagesPerMessage,
} from "./limits";
export { imageTokens, imagesTokens, unknownImageTokens } from "./tokens";
export { imagesOf, imagesShown, unseenImagesNote, type LoadedImage } from "./parts";
export { imageRefSchema, isImageLine, snapshotImageSchema, type SnapshotImage } from "./snapshot";
