// The gateway's error vocabulary, in one module: how an answer is written (send), the status of
// each RPC code (http-status), how a failed RPC becomes the client's status and detail
// (rpc-failure), FastAPI's wording of validation errors (fastapi), the Express error middleware
// (middleware), the error answers of the OpenAPI document (openapi) and the gateway's own named
// refusals (refusals).
export { fastApiEntry, jsonDecodeError, refusal, type ValidationEntry } from "./fastapi.js";
export { HTTP_STATUS_OF_CODE } from "./http-status.js";
export { jsonErrors } from "./middleware.js";
export {
  apiHeaders,
  ERROR_SCHEMAS,
  errorResponses,
  HEADERS,
  JSON_BODY_LIMIT,
  PARAMETERS,
  SHARED_RESPONSES,
  sharedResponse,
} from "./openapi.js";
export { gatewayErrors, refusalAnswer, sendRefusal } from "./refusals.js";
export { rpcFailure, type RpcFailure } from "./rpc-failure.js";
export { sendDetail, sendJson, sendJsonBytes, sendJsonText, sendValidation } from "./send.js";
