import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived and when it was answered (ms since the epoch; answeredAt 0 until then). */
  arrivedAt: number;
  answeredAt: number;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * A webhook receiver on 127.0.0.1 (an ephemeral port): it keeps every request and answers each
 * with what `answer` says for it (200 by default).
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received, index: number) => Answer = () => ({ status: 200 });
  /** How long each answer is held back: requests of one event that overlap in time show. */
  holdMs = 0;
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const request: Received = {
          path: req.url ?? "/",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          arrivedAt: Date.now(),
          answeredAt: 0,
        };
        this.received.push(request);
        const answer = this.answer(request, this.received.length - 1);
        setTimeout(() => {
          request.answeredAt = Date.now();
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body ?? "");
        }, this.holdMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return this;
  }

  url(path = "/hook"): string {
    if (!this.server) throw new Error("receiver not started");
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${path}`;
  }

  /** Requests whose body has this event type. */
  ofType(type: string): Received[] {
    return this.received.filter((request) => (JSON.parse(request.body) as { type: string }).type === type);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
