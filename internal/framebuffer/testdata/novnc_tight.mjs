// Decodes Tight rectangles with noVNC's own TightDecoder and Websock (the
// real peer), in node: argv[2] is noVNC's directory, argv[3] a file of
// rectangles (12-byte RFB header, then the Tight payload) for a
// framebuffer of argv[4]×argv[5] pixels. Writes the framebuffer (R, G, B,
// 0 a pixel) to stdout.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

// What noVNC's modules look for in a browser, at load time only.
globalThis.window = globalThis;
for (const name of ["WebSocket", "RTCDataChannel"]) {
    globalThis[name] ??= { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 };
}
const [dir, file, W, H] = [process.argv[2], process.argv[3], +process.argv[4], +process.argv[5]];
const Websock = (await import(pathToFileURL(dir + "/core/websock.js"))).default;
const TightDecoder = (await import(pathToFileURL(dir + "/core/decoders/tight.js"))).default;

const fb = new Uint8Array(4 * W * H);
const display = {
    fillRect(x, y, w, h, c) {
        for (let r = y; r < y + h; r++) {
            for (let q = x; q < x + w; q++) {
                fb.set([c[0], c[1], c[2], 0], 4 * (r * W + q));
            }
        }
    },
    blitImage(x, y, w, h, arr, offset) {
        for (let r = 0; r < h; r++) {
            for (let q = 0; q < w; q++) {
                const s = offset + 4 * (r * w + q);
                fb.set([arr[s], arr[s + 1], arr[s + 2], 0], 4 * ((y + r) * W + x + q));
            }
        }
    },
    imageRect() { throw new Error("JPEG rectangle: the encoder writes none"); },
};

const sock = new Websock();
sock.init();
sock.on("message", () => {});
const data = readFileSync(file);
sock._recvMessage({ data: data.buffer.slice(data.byteOffset, data.byteOffset + data.length) });
const dec = new TightDecoder();
let n = 0;
while (sock.rQlen() > 0) {
    if (sock.rQlen() < 12) throw new Error("a rectangle header cut short");
    const x = sock.rQshift16(), y = sock.rQshift16(), w = sock.rQshift16(), h = sock.rQshift16();
    const enc = sock.rQshift32();
    if (enc !== 7) throw new Error("encoding " + enc + ", want Tight");
    if (!dec.decodeRect(x, y, w, h, sock, display, 24)) throw new Error("rectangle " + n + " incomplete");
    n++;
}
process.stderr.write(n + " rectangles\n");
process.stdout.write(fb);
