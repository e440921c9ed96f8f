import http from "node:http";

/** What an Express app exposes as its own request and response prototypes (`app.request`, `app.response`). */
export interface AppPrototypes {
  request: object;
  response: object;
}

/** The classes of Node's HTTP server (its `IncomingMessage` and `ServerResponse` options). */
export interface ServerClasses {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
}

/**
 * Request and response classes whose prototypes are the app's own, installed as `app.request`
 * and `app.response` (Express's documented, app-specific extension points). Express sets each
 * request's and response's prototype to the app's as it arrives (`Object.setPrototypeOf` in
 * `app.handle`); V8 then leaves its fast property access for those objects throughout Node's
 * HTTP code. Born with the app's prototypes, they keep it: Express's change is a no-op. Each
 * class extends Node's (Node documents the options for that), and its prototype inherits
 * Express's request or response API and carries what the app's own prototype carried.
 */
export function appServerClasses(app: AppPrototypes): ServerClasses {
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  adopt(AppRequest.prototype, app.request);
  adopt(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype;
  app.response = AppResponse.prototype;
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof http.ServerResponse };
}

/** Makes `prototype` stand in for `current`: same parent, same own properties (such as `app`). */
function adopt(prototype: object, current: object): void {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(current));
  const { constructor: _constructor, ...own } = Object.getOwnPropertyDescriptors(current);
  Object.defineProperties(prototype, own);
}
