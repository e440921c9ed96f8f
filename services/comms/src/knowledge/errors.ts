/**
 * Why ingesting a source failed, in words for the source's `error` field. `transient` says
 * whether trying again later could succeed (a timeout, a 503) or not (a 404, an unsupported
 * type, an address that is refused).
 */
export class IngestionError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = "IngestionError";
  }
}
