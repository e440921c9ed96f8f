import http from "node:http";
import { fastPath } from "@voiceops/platform";
import type { Express } from "express";

type Construct = (this: unknown, ...args: unknown[]) => void;
// Node's IncomingMessage and ServerResponse are plain constructor functions, so a function can
// run them on an object that already has another prototype. (Reflect.construct would do the
// same for a class, but its objects take V8's slow paths: slower than Express's swap.)
const initRequest = http.IncomingMessage as unknown as Construct;
const initResponse = http.ServerResponse as unknown as Construct;
/** False if a Node.js release makes them classes: the server is then a plain one (Express swaps). */
const callable = [http.IncomingMessage, http.ServerResponse].every((f) => !Function.prototype.toString.call(f).startsWith("class"));

/**
 * An HTTP server for an Express app whose requests and responses are created with the app's
 * own prototypes. Express otherwise swaps the prototype of every request and response as it
 * arrives (`Object.setPrototypeOf` in `app.handle`), which turns V8's fast property access off
 * for them throughout Node's HTTP code: a bare Express 5 app answering `{"ok":true}` costs
 * 82 µs of CPU per request with the swap and 22 µs without it. With the prototypes already in
 * place Express's swap changes nothing, and the app behaves exactly as before.
 */
export function expressServer(app: Express, options: http.ServerOptions = {}): http.Server {
  if (!callable || !fastPath("http-server")) return http.createServer(options, app);
  function Request(this: unknown, socket: unknown) {
    initRequest.call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: unknown, req: unknown, responseOptions: unknown) {
    initResponse.call(this, req, responseOptions);
  }
  Response.prototype = app.response;
  return http.createServer(
    {
      ...options,
      IncomingMessage: Request as unknown as typeof http.IncomingMessage,
      ServerResponse: Response as unknown as typeof http.ServerResponse,
    },
    app,
  );
}
