import { Socket } from "node:net";
import type * as Pg from "pg";

type PgPackage = typeof import("pg").default;

/** pg's Client with the socket it connects on. */
export type SocketClient = Pg.Client & { readonly socket: Socket };

/**
 * pg's Client on a socket made here (its documented `stream` option), so that the statements a
 * caller gives it together can be corked into one write (pg writes each as soon as it has it).
 * Pools get it as their `Client` (pg-pool's documented option).
 */
export function socketClient(pg: PgPackage): new (config?: Pg.ClientConfig) => SocketClient {
  return class extends pg.Client {
    readonly socket: Socket;
    constructor(config?: Pg.ClientConfig) {
      const socket = new Socket();
      super({ ...config, stream: () => socket });
      this.socket = socket;
    }
  };
}

/** The socket of a client made by socketClient (a pool's client is typed as pg's own); undefined for any other. */
export function socketOf(client: Pg.ClientBase): Socket | undefined {
  return "socket" in client && client.socket instanceof Socket ? client.socket : undefined;
}
