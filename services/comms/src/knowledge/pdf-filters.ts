import { createInflate, constants as zlib } from "node:zlib";

// The PDF stream filters that expand their input, decoded with a budget: past it they stop and
// say so, having held at most the budget (the last filter of a chain holds nothing: it counts).

/** What decoding gave: its size, and its bytes when they were kept; `over` when it passed the budget. */
export interface Decoded {
  size: number;
  bytes?: Buffer;
  over: boolean;
}

/** Inflates zlib data; a corrupt or truncated stream gives what inflated before the damage, as PDF readers do. */
export function inflateBounded(data: Uint8Array, budget: number, keep: boolean): Promise<Decoded> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: zlib.Z_SYNC_FLUSH });
    const parts: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (over: boolean) => {
      if (done) return;
      done = true;
      inflate.destroy();
      resolve({ size, over, bytes: keep && !over ? Buffer.concat(parts) : undefined });
    };
    inflate.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) return finish(true);
      if (keep) parts.push(chunk);
    });
    inflate.on("end", () => finish(false));
    inflate.on("error", () => finish(false));
    inflate.end(data);
  });
}

/** RunLengthDecode: a length byte, then that many bytes (under 128) or one byte repeated 257 - length times. */
export function runLengthBounded(data: Uint8Array, budget: number, keep: boolean): Decoded {
  const out: number[] = [];
  let size = 0;
  for (let i = 0; i < data.length; ) {
    const length = data[i++] as number;
    if (length === 128) break;
    const count = length < 128 ? length + 1 : 257 - length;
    size += count;
    if (size > budget) return { size, over: true };
    if (keep) {
      if (length < 128) for (let k = 0; k < count; k++) out.push(data[i + k] ?? 0);
      else for (let k = 0; k < count; k++) out.push(data[i] ?? 0);
    }
    i += length < 128 ? count : 1;
  }
  return { size, over: false, bytes: keep ? Buffer.from(out) : undefined };
}

/** LZWDecode (9 to 12-bit codes); `earlyChange` as the stream's DecodeParms say (1 unless 0). */
export function lzwBounded(data: Uint8Array, earlyChange: number, budget: number, keep: boolean): Decoded {
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Int32Array(4096);
  for (let code = 0; code < 256; code++) {
    prefix[code] = -1;
    suffix[code] = code;
    lengths[code] = 1;
  }
  const parts: Buffer[] = [];
  let size = 0;
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let held = 0;
  const firstByte = (code: number) => {
    let c = code;
    while ((prefix[c] as number) >= 0) c = prefix[c] as number;
    return suffix[c] as number;
  };
  const emit = (code: number) => {
    const length = lengths[code] as number;
    size += length;
    if (!keep || size > budget) return;
    const bytes = Buffer.allocUnsafe(length);
    for (let c = code, k = length - 1; k >= 0; k--, c = prefix[c] as number) bytes[k] = suffix[c] as number;
    parts.push(bytes);
  };
  for (let i = 0; i < data.length; i++) {
    held = (held << 8) | (data[i] as number);
    bits += 8;
    while (bits >= width) {
      const code = (held >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      held &= (1 << bits) - 1;
      if (code === 256) {
        next = 258;
        width = 9;
        previous = -1;
        continue;
      }
      if (code === 257) return { size, over: false, bytes: keep ? Buffer.concat(parts) : undefined };
      if (previous < 0) {
        if (code > 255) return { size, over: false, bytes: keep ? Buffer.concat(parts) : undefined };
        emit(code);
      } else {
        const known = code < next;
        if (!known && code !== next) return { size, over: false, bytes: keep ? Buffer.concat(parts) : undefined };
        if (next < 4096) {
          prefix[next] = previous;
          suffix[next] = firstByte(known ? code : previous);
          lengths[next] = (lengths[previous] as number) + 1;
          next++;
        }
        emit(code);
      }
      if (size > budget) return { size, over: true };
      previous = code;
      if (next + earlyChange >= 1 << width && width < 12) width++;
    }
  }
  return { size, over: false, bytes: keep ? Buffer.concat(parts) : undefined };
}
