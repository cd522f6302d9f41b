// The request payloads: a deterministic 256 KiB body like the write-up's health.jpg,
// and the multipart and base64-in-JSON envelopes around it, built once per VU in the
// init context so that iterations only send bytes.
//
// The bytes are a 16 KiB xorshift32 block (fixed seed, little-endian words) repeated
// to PAYLOAD_SIZE; servelab.bench.payload writes the same bytes in Python. Set
// PAYLOAD_FILE (absolute, or relative to loadtests/) to send a real file instead.
import encoding from 'k6/encoding';

const SEED = 0x2545f491;
const BLOCK_SIZE = 16 * 1024;

export const FILENAME = 'health.jpg';
export const FILE_CONTENT_TYPE = 'image/jpeg';
export const BOUNDARY = 'servelab0123456789';
export const MULTIPART_CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export function generatePayload(size, seed = SEED) {
  const block = new Uint32Array(BLOCK_SIZE / 4);
  let x = seed >>> 0;
  for (let i = 0; i < block.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block[i] = x;
  }
  const blockBytes = new Uint8Array(block.buffer);
  const out = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += BLOCK_SIZE) {
    out.set(blockBytes.subarray(0, Math.min(BLOCK_SIZE, size - offset)), offset);
  }
  return out.buffer;
}

// Must be called from the init context when PAYLOAD_FILE is set (open() is init-only).
export function loadPayload() {
  const file = __ENV.PAYLOAD_FILE;
  if (file) {
    const path = file.startsWith('/') ? file : import.meta.resolve(`../${file}`);
    return open(path, 'b');
  }
  return generatePayload(parseInt(__ENV.PAYLOAD_SIZE || '262144', 10));
}

export function asciiBytes(text) {
  return new Uint8Array(encoding.b64decode(encoding.b64encode(text)));
}

export function concat(parts) {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out.buffer;
}

// One form field `file` holding the payload, as a browser or `curl -F` sends it.
export function multipartBody(payload) {
  const head =
    `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${FILENAME}"\r\n` +
    `Content-Type: ${FILE_CONTENT_TYPE}\r\n\r\n`;
  return concat([asciiBytes(head), new Uint8Array(payload), asciiBytes(`\r\n--${BOUNDARY}--\r\n`)]);
}

// {"filename": "health.jpg", "base64": "..."}, as bytes so k6 does not re-encode it per request.
export function base64JsonBody(payload) {
  const json = JSON.stringify({ filename: FILENAME, base64: encoding.b64encode(payload) });
  return asciiBytes(json);
}
