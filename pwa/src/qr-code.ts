// The QR code of a sign-in link as SVG markup. Built as its own file (dist/qr.js) and loaded only
// when an admin makes an invite, so the QR encoder never weighs on the app's first load.
import { qrModules, qrSvg } from "../../core/invites/qr";

/** SVG markup of the QR code for `text` (digits and fixed markup only: nothing of `text` is in it). */
export function qrSvgOf(text: string): string {
  return qrSvg(qrModules(text));
}
