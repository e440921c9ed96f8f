import {
  create,
  fromBinary,
  toBinary,
  type DescMethodUnary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

/**
 * A plain @grpc/grpc-js client (no generated stubs, no Connect), as a customer automation
 * inside the cluster might use, for calling a service directly.
 */
export function plainGrpcClient(baseUrl: string) {
  const url = new URL(baseUrl);
  const client = new grpc.Client(`${url.hostname}:${url.port}`, grpc.credentials.createInsecure());
  return {
    call<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      request: MessageInitShape<I>,
      metadata: Record<string, string>,
    ): Promise<MessageShape<O>> {
      const meta = new grpc.Metadata();
      for (const [key, value] of Object.entries(metadata)) meta.set(key, value);
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          `/${method.parent.typeName}/${method.name}`,
          (message: MessageShape<I>) => Buffer.from(toBinary(method.input, message)),
          (bytes: Buffer) => fromBinary(method.output, bytes),
          create(method.input, request),
          meta,
          (error, response) => (error ? reject(error) : resolve(response as MessageShape<O>)),
        );
      });
    },
    close: () => client.close(),
  };
}

/** gRPC metadata carrying an org context and the internal token. */
export function orgMetadata(
  orgId: string,
  internalToken: string,
  options: { role?: string; timezone?: string; country?: string } = {},
): Record<string, string> {
  return {
    "x-internal-token": internalToken,
    "x-org-id": orgId,
    "x-org-timezone": options.timezone ?? "UTC",
    "x-org-country": options.country ?? "US",
    "x-role": options.role ?? "owner",
  };
}

export { grpc };
