import qrcode from "qrcode-generator";

/**
 * The modules (dark = true) of a QR code for `text`, error correction M, smallest version that fits.
 * Drawn by the CLI as terminal blocks and by the PWA as an SVG, from the same matrix.
 */
export function qrModules(text: string): boolean[][] {
  const qr = qrcode(0, "M");
  qr.addData(text, "Byte");
  qr.make();
  const size = qr.getModuleCount();
  return Array.from({ length: size }, (_, row) => Array.from({ length: size }, (_, col) => qr.isDark(row, col)));
}

/**
 * A QR code as text for a terminal: two module rows per line with half blocks, dark on light, and a
 * quiet zone of `margin` modules (scanners need it).
 */
export function qrTerminal(modules: boolean[][], margin = 2): string {
  const size = modules.length + margin * 2;
  const dark = (row: number, col: number) => modules[row - margin]?.[col - margin] === true;
  const lines: string[] = [];
  for (let row = 0; row < size; row += 2) {
    let line = "";
    for (let col = 0; col < size; col++) {
      const top = dark(row, col);
      const bottom = row + 1 < size && dark(row + 1, col);
      // Light is the block: a terminal's dark background would otherwise invert the code.
      line += top ? (bottom ? " " : "▄") : bottom ? "▀" : "█";
    }
    lines.push(line);
  }
  return lines.join("\n");
}

/**
 * A QR code as an SVG document: one path of the dark modules on a white square, `margin` modules of
 * quiet zone, scalable (viewBox in modules).
 */
export function qrSvg(modules: boolean[][], margin = 4): string {
  const size = modules.length + margin * 2;
  let path = "";
  modules.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x + margin} ${y + margin}h1v1h-1z`;
    }),
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}
