/**
 * Pictures a person attaches to a message, sized down on the device before they are uploaded:
 * a phone's 12-megapixel photo is 4 MB the models would shrink anyway, over a mobile link.
 * The limits and shapes; the drawing itself is in ./picture-shrink.ts (it needs the DOM).
 */

/** Anthropic and OpenAI scale anything larger down to this on the long side, so more is wasted bytes. */
export const LONGEST_SIDE = 1568;
export const JPEG_QUALITY = 0.85;
/** A PNG this small and already within {@link LONGEST_SIDE} is sent as it is (a screenshot stays sharp). */
export const SMALL_PNG_BYTES = 256 * 1024;
export const MAX_PICTURES = 4;

/** A picture ready to upload: its bytes, and what the device learned while sizing it. */
export interface ShrunkPicture {
  blob: Blob;
  /** The type the upload declares; the server sniffs the bytes and decides for itself. */
  type: string;
  /** The file's name, or "camera" for a photo from the live preview. */
  name: string;
  /** Unset when the device could not read the file as a picture (the server then says why). */
  width?: number;
  height?: number;
}

/** A picture in the composer or the outbox; `id` once the server has stored it. */
export interface Picture extends ShrunkPicture {
  key: string;
  id?: string;
}

/**
 * The size a picture is drawn at: its own when it fits, else scaled so the long side is `longest`.
 * @example fitWithin(4000, 3000) // { width: 1568, height: 1176 }
 */
export function fitWithin(width: number, height: number, longest = LONGEST_SIDE): { width: number; height: number } {
  const scale = Math.min(1, longest / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** What getUserMedia's refusal means for the person, and what they can do instead. */
export function cameraProblem(error: unknown): string {
  const name = (error as { name?: string } | null)?.name ?? "";
  if (name === "NotAllowedError" || name === "SecurityError") {
    return "Camera access was denied. Allow the camera for this site in the browser's settings, or choose a picture instead.";
  }
  if (name === "NotFoundError" || name === "OverconstrainedError" || name === "DevicesNotFoundError") {
    return "No camera was found on this device. Choose a picture instead.";
  }
  if (name === "NotReadableError")
    return "The camera is in use by another app. Close it and try again, or choose a picture instead.";
  if (name === "NoMediaDevices")
    return "This browser cannot open the camera here (it needs a secure https connection). Choose a picture instead.";
  return `The camera could not be opened${error instanceof Error && error.message ? `: ${error.message}` : ""}. Choose a picture instead.`;
}
