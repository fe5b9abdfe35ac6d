export { makeR2ImageStore } from "./r2-image-store";
