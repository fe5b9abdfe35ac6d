export { imageRoutes } from "./routes";
export { bytesOfDataUrl, bytesOfUrl, imageStoreOf, readCapped, storeImage } from "./ingest";
export { refsOfIds } from "./message-images";
export {
  aguiImageSources,
  maxInlineImageBodyBytes,
  openAiImageSources,
  storeImageSources,
  type ImageDoor,
} from "./message-parts";
export { imageSnapshotLines, restoreImageLines } from "./snapshot";
