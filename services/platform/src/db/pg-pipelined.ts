import type { Socket } from "node:net";
import type * as Pg from "pg";

/** One connection in pg's pipeline mode and the statements it has been given that have not answered yet. */
interface Lane {
  client: Pg.Client;
  /** The connection's socket, made here and handed to pg (its documented `stream` option). */
  socket: Socket;
  /** The socket holds its writes until the end of this turn of the event loop. */
  corked: boolean;
  connected: Promise<void>;
  pending: number;
  broken: boolean;
}

/**
 * Reads by key (statements run `prepared` and `cacheable`) outside transactions, on a few connections in
 * pg's pipeline mode (https://node-postgres.com/features/pipelining): concurrent requests' lookups
 * go out behind each other without waiting for the answers in between, so a busy service reads
 * several answers per wake-up and borrows no pool connection per statement. Each statement still
 * has its own result and its own error. Searches, lists, writes and transactions stay on the
 * pool, so no slow statement and no statement waiting for a lock holds up a lookup behind it.
 *
 * pg writes each statement as soon as it is given one; the lookups given to a lane in one turn of
 * the event loop leave in one write, the socket corked until the turn ends.
 *
 * A lane whose connection fails is replaced on the next statement; the statements it carried
 * fail with the connection's error, as they would on a pool's connection.
 */
export class PipelinedLanes {
  readonly #lanes: Lane[] = [];

  constructor(
    /** A client in pipeline mode and the socket it was given (pg's `stream` option). */
    private readonly open: () => { client: Pg.Client; socket: Socket },
    private readonly count: number,
    private readonly onError: (error: Error) => void,
  ) {}

  async run(config: Pg.QueryConfig): Promise<Pg.QueryResult> {
    const lane = this.#pick();
    lane.pending += 1;
    try {
      await lane.connected;
      if (!lane.corked) {
        lane.corked = true;
        lane.socket.cork();
        setImmediate(() => {
          lane.corked = false;
          lane.socket.uncork();
        });
      }
      return await lane.client.query(config);
    } finally {
      lane.pending -= 1;
    }
  }

  /** The lane with the fewest statements in flight; a new one while fewer than `count` are open and all are busy. */
  #pick(): Lane {
    for (let index = this.#lanes.length - 1; index >= 0; index -= 1) {
      if (this.#lanes[index]?.broken) this.#lanes.splice(index, 1);
    }
    let best: Lane | undefined;
    for (const lane of this.#lanes) if (!best || lane.pending < best.pending) best = lane;
    if (best && (best.pending === 0 || this.#lanes.length >= this.count)) return best;
    return this.#openLane();
  }

  #openLane(): Lane {
    const { client, socket } = this.open();
    const lane: Lane = { client, socket, corked: false, connected: Promise.resolve(), pending: 0, broken: false };
    const breakLane = () => {
      lane.broken = true;
    };
    client.on("error", (error) => {
      breakLane();
      this.onError(error);
    });
    client.on("end", breakLane);
    lane.connected = client.connect().then(
      () => undefined,
      (error: unknown) => {
        breakLane();
        throw error;
      },
    );
    // The statements waiting on it get the failure; this handler keeps it from being unhandled.
    lane.connected.catch(() => undefined);
    this.#lanes.push(lane);
    return lane;
  }

  async close(): Promise<void> {
    const lanes = this.#lanes.splice(0);
    await Promise.all(lanes.map((lane) => lane.client.end().catch(() => undefined)));
  }
}
