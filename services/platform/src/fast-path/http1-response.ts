import { MAX_MESSAGE_BYTES } from "../rpc/limits.js";
import { HEADER_NAME } from "./unary-call.js";

// The parser of the HTTP/1.1 answers on one of connect-http1-client.ts's connections, apart from
// the socket so that it can be fuzzed (test/fast-path-fuzz.test.ts): bytes in, whole answers out,
// in order; anything that is not HTTP/1.1 as a Connect server writes it is an error.

/** The longest response head (status line and headers) accepted. */
export const MAX_HEAD_BYTES = 64 * 1024;
const CRLF2 = Buffer.from("\r\n\r\n");
/** Characters an HTTP/1.1 header value may hold (no CR, LF, NUL or other controls but tab). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A chunk size: hexadecimal digits, optionally followed by chunk extensions. */
const CHUNK_SIZE = /^[0-9a-fA-F]{1,8}(;.*)?$/;

/** An answer's header fields as received, names in lower case (Headers are built only when asked for). */
export type Fields = [name: string, value: string][];

export interface Answer {
  status: number;
  fields: Fields;
  body: Buffer;
  /** The server closes the connection after this answer. */
  close: boolean;
}

/** The status line and headers of an answer, and how its body is delimited. */
interface Head {
  status: number;
  fields: Fields;
  length: number | undefined;
  chunked: boolean;
  close: boolean;
}

/** The value of a header field (the first, names in lower case), or undefined. */
export function field(fields: Fields, name: string): string | undefined {
  for (const [key, value] of fields) if (key === name) return value;
  return undefined;
}

export class ResponseParser {
  #buffer: Buffer = Buffer.alloc(0);
  #head: Head | undefined;
  #chunks: Buffer[] = [];
  #chunked = 0;

  /** Bytes received and not yet part of an answer returned by next(). */
  get buffered(): number {
    return this.#buffer.length;
  }

  push(data: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? data : Buffer.concat([this.#buffer, data]);
  }

  /** The next complete answer once it has arrived, else undefined; throws on a protocol error. */
  next(): Answer | undefined {
    if (!this.#head) {
      const end = this.#buffer.indexOf(CRLF2);
      if (end < 0) {
        if (this.#buffer.length > MAX_HEAD_BYTES) throw new Error("protocol error: response head too large");
        return undefined;
      }
      if (end > MAX_HEAD_BYTES) throw new Error("protocol error: response head too large");
      const lines = this.#buffer.toString("latin1", 0, end).split("\r\n");
      const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? "");
      if (!status) throw new Error("protocol error: bad status line");
      const fields: Fields = [];
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i] ?? "";
        const colon = line.indexOf(":");
        if (colon <= 0) throw new Error("protocol error: bad header line");
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) throw new Error("protocol error: bad header line");
        fields.push([name, value]);
      }
      const code = Number(status[1]);
      this.#buffer = this.#buffer.subarray(end + 4);
      // An informational answer (100 Continue) precedes the real one.
      if (code >= 100 && code < 200) return this.next();
      const length = field(fields, "content-length");
      const connection = field(fields, "connection")?.toLowerCase() ?? "";
      const head: Head = {
        status: code,
        fields,
        length: length === undefined ? undefined : /^\d+$/.test(length) ? Number(length) : Number.NaN,
        chunked: /\bchunked\b/i.test(field(fields, "transfer-encoding") ?? ""),
        close: connection.includes("close") || (lines[0] ?? "").startsWith("HTTP/1.0"),
      };
      if (head.length !== undefined && !Number.isSafeInteger(head.length))
        throw new Error("protocol error: bad content-length");
      if ((head.length ?? 0) > MAX_MESSAGE_BYTES) throw new Error(`answer larger than ${MAX_MESSAGE_BYTES} bytes`);
      if (!head.chunked && head.length === undefined) throw new Error("protocol error: answer without a length");
      this.#head = head;
      this.#chunks = [];
      this.#chunked = 0;
    }
    const head = this.#head;
    const answer = head.chunked ? this.#chunkedBody(head) : this.#sizedBody(head, head.length ?? 0);
    if (answer) this.#head = undefined;
    return answer;
  }

  #sizedBody(head: Head, length: number): Answer | undefined {
    if (this.#buffer.length < length) return undefined;
    const body = this.#buffer.subarray(0, length);
    this.#buffer = this.#buffer.subarray(length);
    return { status: head.status, fields: head.fields, body, close: head.close };
  }

  #chunkedBody(head: Head): Answer | undefined {
    for (;;) {
      const end = this.#buffer.indexOf("\r\n");
      if (end < 0) {
        if (this.#buffer.length > MAX_HEAD_BYTES) throw new Error("protocol error: bad chunk size");
        return undefined;
      }
      const line = this.#buffer.toString("latin1", 0, end);
      if (!CHUNK_SIZE.test(line)) throw new Error("protocol error: bad chunk size");
      const size = Number.parseInt(line, 16);
      if (size === 0) {
        // The last chunk, optional trailer fields, and the closing empty line.
        const close = this.#buffer.indexOf(CRLF2, end);
        if (close < 0) {
          if (this.#buffer.length > MAX_HEAD_BYTES) throw new Error("protocol error: trailer too large");
          return undefined;
        }
        this.#buffer = this.#buffer.subarray(close + 4);
        return {
          status: head.status,
          fields: head.fields,
          body: Buffer.concat(this.#chunks, this.#chunked),
          close: head.close,
        };
      }
      if (this.#chunked + size > MAX_MESSAGE_BYTES) throw new Error(`answer larger than ${MAX_MESSAGE_BYTES} bytes`);
      if (this.#buffer.length < end + 2 + size + 2) return undefined;
      if (this.#buffer[end + 2 + size] !== 0x0d || this.#buffer[end + 2 + size + 1] !== 0x0a)
        throw new Error("protocol error: chunk not followed by CRLF");
      this.#chunked += size;
      this.#chunks.push(this.#buffer.subarray(end + 2, end + 2 + size));
      this.#buffer = this.#buffer.subarray(end + 2 + size + 2);
    }
  }
}
