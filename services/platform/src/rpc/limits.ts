/** The largest message a call between components carries either way, on the fast path and the stock one. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
