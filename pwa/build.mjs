// Builds the PWA into pwa/dist: bundles, service worker, manifest and PNG icons.
// Usage: node pwa/build.mjs
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { build } from "esbuild";

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
const THEME = "#4338ca";

/**
 * Builds everything; returns the list of files written (relative to dist). The files are built in a
 * folder beside `outdir` and each is then moved in by a rename, so a `wrangler dev` serving `outdir`
 * never sees it gone or half written (removing and refilling it left every file a 404 until restart).
 */
export async function buildPwa({ outdir = dist } = {}) {
  await mkdir(dirname(outdir), { recursive: true });
  const staging = await mkdtemp(join(dirname(outdir), `.${basename(outdir)}-build-`));
  try {
    const files = await buildInto(staging);
    const made = await readdir(staging);
    await mkdir(outdir, { recursive: true });
    for (const entry of made) await rename(join(staging, entry), join(outdir, entry));
    // What an older build left and this one no longer makes.
    for (const entry of await readdir(outdir))
      if (!made.includes(entry)) await rm(join(outdir, entry), { recursive: true, force: true });
    return files;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function buildInto(outdir) {
  const common = {
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    legalComments: "none",
    logLevel: "warning",
  };
  await build({ ...common, entryPoints: [join(root, "src/main.ts")], outfile: join(outdir, "app.js") });
  // Loaded on demand (an admin's invite shows its QR code): not part of the app's first load.
  await build({ ...common, entryPoints: [join(root, "src/qr-code.ts")], outfile: join(outdir, "qr.js") });

  await copyFile(join(root, "public/index.html"), join(outdir, "index.html"));
  await copyFile(join(root, "public/icon.svg"), join(outdir, "icon.svg"));
  await writeFile(join(outdir, "icon-192.png"), drawIcon(192, false));
  await writeFile(join(outdir, "icon-512.png"), drawIcon(512, false));
  await writeFile(join(outdir, "icon-maskable-512.png"), drawIcon(512, true));
  await writeFile(join(outdir, "manifest.webmanifest"), JSON.stringify(manifest(), null, 2));

  const shell = [
    "/",
    "/app.js",
    "/manifest.webmanifest",
    "/icon.svg",
    "/icon-192.png",
    "/icon-512.png",
    "/icon-maskable-512.png",
  ];
  const hash = createHash("sha256");
  for (const f of ["/index.html", ...shell.slice(1)]) hash.update(await readFile(join(outdir, f)));
  await build({
    ...common,
    entryPoints: [join(root, "src/sw.ts")],
    outfile: join(outdir, "sw.js"),
    define: { SHELL_VERSION: JSON.stringify(hash.digest("hex").slice(0, 12)), SHELL_FILES: JSON.stringify(shell) },
  });
  return ["/index.html", ...shell.slice(1), "/sw.js"];
}

function manifest() {
  return {
    name: "Pantheon",
    short_name: "Pantheon",
    description: "Chat with your Pantheon agents",
    id: "/",
    start_url: "/#/agents",
    scope: "/",
    display: "standalone",
    // Sharing a link, text or photos from another app opens the PWA's "share to which agent" page (sw.ts).
    share_target: {
      action: "/share-target",
      method: "POST",
      enctype: "multipart/form-data",
      params: { title: "title", text: "text", url: "url", files: [{ name: "photos", accept: ["image/*"] }] },
    },
    orientation: "any",
    background_color: "#f5f6fa",
    theme_color: THEME,
    icons: [
      { src: "/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      { src: "/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
    ],
  };
}

// --- icons: the temple glyph of icon.svg, rasterised with 4×4 supersampling -------------

/** Is the point (in the SVG's 64-unit space) inside the white glyph? */
function inGlyph(x, y) {
  if (y >= 12 && y <= 24) {
    const half = ((y - 12) / 12) * 20;
    if (x >= 32 - half && x <= 32 + half) return true;
  }
  for (const cx of [15, 29, 43]) if (x >= cx && x <= cx + 6 && y >= 27 && y <= 47) return true;
  return x >= 11 && x <= 53 && y >= 49 && y <= 54;
}

function inRoundedSquare(x, y, r) {
  const dx = Math.max(r - x, 0, x - (64 - r));
  const dy = Math.max(r - y, 0, y - (64 - r));
  return dx * dx + dy * dy <= r * r;
}

function drawIcon(size, maskable) {
  const [ar, ag, ab] = [0x43, 0x38, 0xca];
  const px = Buffer.alloc(size * size * 4);
  const n = 4;
  // Maskable icons are cropped to a circle of 80%: full-bleed background, glyph kept inside.
  const glyphScale = maskable ? 0.72 : 1;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      let bg = 0,
        fg = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = ((i + (sx + 0.5) / n) / size) * 64;
          const y = ((j + (sy + 0.5) / n) / size) * 64;
          if (!maskable && !inRoundedSquare(x, y, 14)) continue;
          bg++;
          const gx = 32 + (x - 32) / glyphScale;
          const gy = 33 + (y - 33) / glyphScale;
          if (inGlyph(gx, gy)) fg++;
        }
      }
      const o = (j * size + i) * 4;
      const t = bg ? fg / bg : 0;
      px[o] = Math.round(ar + (255 - ar) * t);
      px[o + 1] = Math.round(ag + (255 - ag) * t);
      px[o + 2] = Math.round(ab + (255 - ab) * t);
      px[o + 3] = Math.round((bg / (n * n)) * 255);
    }
  }
  return encodePng(size, size, px);
}

function encodePng(width, height, rgba) {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await buildPwa();
  console.log(`pwa: built ${files.length} files into ${dist}`);
}
