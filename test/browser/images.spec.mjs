// A person takes a picture with the phone's camera (Chromium's fake camera device), or chooses one,
// and sends it to an agent: sized down on the device, stored by the server, shown in the
// conversation, answered by the offline model, which says it cannot see and what it received.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { deflateSync } from "node:zlib";
import { BASE_URL, PHONE, TOKEN, api, axe, createAgent, launchSignedIn, shoot, uniqueName } from "./harness.mjs";

const CAMERA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"];
const LONGEST = 1568;
const agent = uniqueName("pictures");
let b;

before(async () => {
  await createAgent(agent);
  b = await launchSignedIn({ viewport: PHONE, args: CAMERA, permissions: ["camera"] });
});
after(async () => {
  await b?.close();
});

/** The newest user message the server stored with pictures, and each picture's bytes as served. */
async function storedPictures() {
  const { status, body } = await api(`/api/agents/${agent}/messages?limit=50`);
  assert.equal(status, 200);
  const withImages = body.messages
    .filter((m) => m.role === "user" && m.images?.length)
    .sort((x, y) => String(y.createdAt).localeCompare(String(x.createdAt)));
  assert.ok(withImages.length > 0, "the server stored a message with pictures");
  const message = withImages[0];
  const images = await Promise.all(
    message.images.map(async (ref) => {
      const res = await fetch(`${BASE_URL}/api/agents/${agent}/images/${ref.id}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(res.status, 200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { ref, served: res.headers.get("content-type"), bytes, size: jpegSize(bytes) };
    }),
  );
  return { message, images };
}

/** A JPEG's dimensions from its frame header (SOFn), read independently of what the server says. */
function jpegSize(bytes) {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  for (let i = 2; i + 9 < bytes.length; ) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    const length = (bytes[i + 2] << 8) | bytes[i + 3];
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (bytes[i + 5] << 8) | bytes[i + 6], width: (bytes[i + 7] << 8) | bytes[i + 8] };
    }
    i += 2 + length;
  }
  return null;
}

/** A width×height RGB PNG with a gradient and noise (so it is not trivially small). */
function png(width, height) {
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const o = y * row + 1 + x * 3;
      raw[o] = (x * 255) / width;
      raw[o + 1] = (y * 255) / height;
      raw[o + 2] = seed & 0x3f;
    }
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function crc32(buf) {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** Inserts an EXIF block saying "rotate 90° clockwise to show" (orientation 6) into a JPEG. */
function withExifOrientation6(jpeg) {
  const tiff = Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]);
  const payload = Buffer.concat([Buffer.from("Exif\0\0", "binary"), tiff]);
  const app1 = Buffer.concat([
    Buffer.from([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]),
    payload,
  ]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

/** The finished reply right after the person's message with this text. */
async function replyTo(text, timeout = 20_000) {
  const reply = b.page
    .locator(`.msg.user:has-text(${JSON.stringify(text)}) ~ .msg.assistant[aria-busy="false"]`)
    .first();
  await reply.waitFor({ timeout });
  return reply;
}

const composer = () => b.page.getByLabel(`Message ${agent}`);
const tray = () => b.page.getByRole("list", { name: "Pictures to send" });
const chooser = () => b.page.locator('input[type="file"]:not([capture])');

test("a picture from the camera is sized down on the phone, stored as a JPEG, shown, and answered", async () => {
  const page = b.page;
  await page.goto(`/#/agents/${agent}/chat`);
  await page.getByRole("button", { name: "Take a picture" }).click();
  await page.getByLabel("Camera preview").waitFor();
  const shutter = page.getByRole("button", { name: "Shutter: take the picture" });
  await assert.doesNotReject(shutter.waitFor());
  await page.waitForFunction(
    () =>
      !document
        .querySelector("pantheon-app")
        ?.shadowRoot?.querySelector("pantheon-chat")
        ?.shadowRoot?.querySelector("pantheon-picture-picker")
        ?.shadowRoot?.querySelector(".shutter")
        ?.hasAttribute("disabled"),
  );
  await shoot(page, "camera-preview");
  await shutter.click();
  await tray().getByRole("img", { name: "Picture 1 to send" }).waitFor();
  await composer().fill("What is in this picture?");
  await shoot(page, "picture-attached");
  await page.getByRole("button", { name: "Send" }).click();

  const reply = await replyTo("What is in this picture?");
  const { message, images } = await storedPictures();
  assert.equal(message.content, "What is in this picture?");
  assert.equal(images.length, 1);
  const [img] = images;
  assert.equal(img.ref.type, "image/jpeg");
  assert.equal(img.served, "image/jpeg");
  // Chromium's fake camera films at 3840×2160: the phone sent it at most 1568 on the long side.
  assert.ok(img.size, "the stored bytes are a JPEG");
  assert.equal(
    Math.max(img.size.width, img.size.height),
    LONGEST,
    `sized down to ${LONGEST} on the long side: ${JSON.stringify(img.size)}`,
  );
  assert.deepEqual({ width: img.ref.width, height: img.ref.height }, img.size);
  // The reply: the offline model cannot see, and says what it got.
  const text = await reply.innerText();
  assert.match(text, /cannot see/i);
  assert.match(text, /image\/jpeg/);
  assert.match(text, new RegExp(`${img.size.width}\\s*[x×]\\s*${img.size.height}`));
  assert.ok(text.includes(img.ref.id.slice(0, 12)), `the reply names the picture it received (${img.ref.id}): ${text}`);

  // The conversation shows the stored picture (fetched with the token), and a tap enlarges it.
  const thumb = page
    .locator(".msg.user")
    .filter({ hasText: "What is in this picture?" })
    .getByRole("button", { name: /enlarge picture 1/i });
  await thumb.waitFor();
  await page.waitForFunction(() => {
    const chat = document.querySelector("pantheon-app")?.shadowRoot?.querySelector("pantheon-chat")?.shadowRoot;
    return [...(chat?.querySelectorAll(".msg.user img") ?? [])].some((i) => i.complete && i.naturalWidth > 0);
  });
  await thumb.click();
  const viewer = page.getByRole("dialog", { name: /picture 1/i });
  await viewer.waitFor();
  const shown = await viewer.getByRole("img").evaluate((i) => ({ width: i.naturalWidth, height: i.naturalHeight }));
  assert.deepEqual(shown, img.size);
  assert.deepEqual(await axe(page), []);
  await shoot(page, "picture-enlarged");
  await viewer.getByRole("button", { name: "Close" }).click();
  await viewer.waitFor({ state: "hidden" });
});

test("a 4000×3000 picture chosen from the phone arrives sized down, a portrait photo stays upright, a small PNG stays a PNG", async () => {
  const page = b.page;
  await page.reload();
  await composer().waitFor();
  const big = png(4000, 3000);
  // A camera JPEG lying on its side with EXIF saying "turn me": drawn 400×200, shown 200×400.
  const landscape = Buffer.from(
    await page.evaluate(async () => {
      const c = new OffscreenCanvas(400, 200);
      const g = c.getContext("2d");
      g.fillStyle = "#3a7";
      g.fillRect(0, 0, 400, 200);
      return [...new Uint8Array(await (await c.convertToBlob({ type: "image/jpeg" })).arrayBuffer())];
    }),
  );
  await chooser().setInputFiles([
    { name: "big.png", mimeType: "image/png", buffer: big },
    { name: "portrait.jpg", mimeType: "image/jpeg", buffer: withExifOrientation6(landscape) },
    { name: "small.png", mimeType: "image/png", buffer: png(300, 200) },
  ]);
  await tray().getByRole("img", { name: "Picture 3 to send" }).waitFor({ timeout: 20_000 });
  await composer().fill("Three pictures");
  await page.getByRole("button", { name: "Send" }).click();
  const reply = await replyTo("Three pictures");
  const { message, images } = await storedPictures();
  assert.equal(message.content, "Three pictures");
  assert.deepEqual(
    images.map((i) => i.ref.type),
    ["image/jpeg", "image/jpeg", "image/png"],
    "the large PNG was re-encoded as a JPEG, the small one kept",
  );
  assert.deepEqual(images[0].size, { width: 1568, height: 1176 });
  assert.ok(
    images[0].bytes.length < big.length / 4,
    `${images[0].bytes.length} bytes sent for a ${big.length}-byte PNG`,
  );
  assert.deepEqual(images[1].size, { width: 200, height: 400 }, "EXIF orientation applied on the device");
  const small = png(300, 200);
  assert.deepEqual(Buffer.from(images[2].bytes), small, "a small PNG that fits is sent byte for byte");
  assert.deepEqual({ width: images[2].ref.width, height: images[2].ref.height }, { width: 300, height: 200 });
  assert.match(await reply.innerText(), /3 images/i);
});

test("a file that is not a picture shows the server's refusal and keeps the message; without it the text goes", async () => {
  const page = b.page;
  await composer().fill("Here are my notes");
  await chooser().setInputFiles({
    name: "notes.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("not a picture at all\n"),
  });
  await tray().getByText("notes.txt").waitFor();
  await page.getByRole("button", { name: "Send" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "notes.txt was not sent" });
  await alert.waitFor();
  // The server's own 415 message, word for word.
  const refused = await fetch(`${BASE_URL}/api/agents/${agent}/images`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
    body: "not a picture at all\n",
  });
  assert.equal(refused.status, 415);
  const { error } = await refused.json();
  assert.ok(error.message.length > 10);
  assert.ok(
    (await alert.innerText()).includes(error.message),
    `the alert shows the server's reason: ${await alert.innerText()}`,
  );
  assert.equal(await composer().inputValue(), "Here are my notes", "nothing typed is lost");
  await tray().getByText("notes.txt").waitFor();
  await shoot(page, "picture-refused");

  // Positive control: the same message without the file is sent.
  await tray().getByRole("button", { name: "Remove picture 1" }).click();
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator(".msg.user").filter({ hasText: "Here are my notes" }).waitFor();
  await page.locator(".msg.assistant").last().waitFor();
  assert.equal(await composer().inputValue(), "");
});

test("a message takes up to 4 pictures, and pictures not sent yet survive a reload", async () => {
  const page = b.page;
  const tiny = png(8, 8);
  await chooser().setInputFiles(
    [1, 2, 3, 4, 5].map((n) => ({ name: `p${n}.png`, mimeType: "image/png", buffer: tiny })),
  );
  await tray().getByRole("img", { name: "Picture 4 to send" }).waitFor();
  assert.equal(await tray().getByRole("listitem").count(), 4);
  await page.getByRole("alert").filter({ hasText: "up to 4 pictures" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Take a picture" }).isDisabled(), true);
  // A reload (or a phone dropping the tab while its camera app is open) keeps them, as it keeps the text.
  await composer().fill("Four of them");
  await page.reload();
  await tray().getByRole("img", { name: "Picture 4 to send" }).waitFor();
  assert.equal(await tray().getByRole("listitem").count(), 4);
  assert.equal(await composer().inputValue(), "Four of them");
  for (let n = 4; n >= 1; n--)
    await tray()
      .getByRole("button", { name: `Remove picture ${n}` })
      .click();
  assert.equal(await page.getByRole("button", { name: "Take a picture" }).isDisabled(), false);
  await composer().fill("");
  // Taken out, they stay out after a reload.
  await page.reload();
  await composer().waitFor();
  await page.waitForTimeout(500);
  assert.equal(await tray().count(), 0);
});

test("a picture sent offline waits in the outbox, bytes and all, and arrives when the connection returns", async () => {
  const page = b.page;
  await chooser().setInputFiles({ name: "offline.png", mimeType: "image/png", buffer: png(2000, 1000) });
  await tray().getByRole("img", { name: "Picture 1 to send" }).waitFor();
  await b.context.setOffline(true);
  await page.getByText("You're offline.").first().waitFor();
  await composer().fill("Sent from the train");
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("You're offline; your message is queued").waitFor();
  const queued = page.locator(".msg.user").filter({ hasText: "Sent from the train" });
  await queued.getByRole("img").waitFor();
  await b.context.setOffline(false);
  const reply = await replyTo("Sent from the train", 30_000);
  const { message, images } = await storedPictures();
  assert.match(await reply.innerText(), /1568\s*[x×]\s*784/);
  assert.equal(message.content, "Sent from the train");
  assert.deepEqual(images[0].size, { width: 1568, height: 784 });
});

test("a queued file the server refuses comes back to the composer with its reason when the connection returns", async () => {
  const page = b.page;
  await b.context.setOffline(true);
  await page.getByText("You're offline.").first().waitFor();
  await chooser().setInputFiles({
    name: "minutes.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("not a picture\n"),
  });
  await tray().getByText("minutes.txt").waitFor();
  await composer().fill("Minutes from the train");
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("You're offline; your message is queued").waitFor();
  await page.locator(".msg.user").filter({ hasText: "Minutes from the train" }).waitFor();
  assert.equal(await composer().inputValue(), "");
  await b.context.setOffline(false);
  await page.getByRole("alert").filter({ hasText: "minutes.txt was not sent" }).waitFor({ timeout: 30_000 });
  assert.equal(await composer().inputValue(), "Minutes from the train", "the text is back in the composer");
  await tray().getByText("minutes.txt").waitFor();
  await page.locator(".msg.user").filter({ hasText: "Minutes from the train" }).waitFor({ state: "detached" });
  assert.equal(
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const open = indexedDB.open("pantheon");
          open.onsuccess = () => {
            const all = open.result.transaction("outbox").objectStore("outbox").getAll();
            all.onsuccess = () => resolve(all.result.length);
          };
        }),
    ),
    0,
    "the refused message left the outbox",
  );
  await tray().getByRole("button", { name: "Remove picture 1" }).click();
  await composer().fill("");
});

test("a camera the person refused says so, and choosing a picture still works", async () => {
  // No fake permission prompt: Chromium refuses the camera the way a person's "Block" does.
  const denied = await launchSignedIn({
    viewport: PHONE,
    args: ["--use-fake-device-for-media-stream", "--deny-permission-prompts"],
  });
  try {
    await denied.page.goto(`/#/agents/${agent}/chat`);
    await denied.page.getByRole("button", { name: "Take a picture" }).click();
    await denied.page.getByRole("alert").filter({ hasText: "Camera access was denied" }).waitFor();
    // The phone's own camera app is offered instead (a file input with capture).
    await denied.page.getByLabel("Take a picture with the camera app").waitFor({ state: "attached" });
    assert.equal(
      await denied.page.getByLabel("Take a picture with the camera app").getAttribute("capture"),
      "environment",
    );
    await shoot(denied.page, "camera-denied");
    await denied.page
      .locator('input[type="file"]:not([capture])')
      .setInputFiles({ name: "instead.png", mimeType: "image/png", buffer: png(16, 16) });
    await denied.page
      .getByRole("list", { name: "Pictures to send" })
      .getByRole("img", { name: "Picture 1 to send" })
      .waitFor();
  } finally {
    await denied.close();
  }
});
