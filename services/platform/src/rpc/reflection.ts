import { toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import {
  ServerReflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "@voiceops/proto/grpc/reflection/v1/reflection_pb";
import { ServerReflection as ServerReflectionAlpha } from "@voiceops/proto/grpc/reflection/v1alpha/reflection_pb";

type Answer = Omit<ServerReflectionResponse, "$typeName" | "originalRequest">;

/** What reflection serves: the services, their files with every dependency, and an index of symbols. */
class Schema {
  private readonly files = new Map<string, DescFile>();
  private readonly symbols = new Map<string, DescFile>();
  private readonly extensions = new Map<string, Map<number, DescFile>>();

  constructor(readonly services: DescService[]) {
    for (const service of services) this.add(service.file);
  }

  private add(file: DescFile): void {
    if (this.files.has(file.proto.name)) return;
    this.files.set(file.proto.name, file);
    for (const type of nestedTypes(file)) {
      if (type.kind === "extension") {
        const numbers = this.extensions.get(type.extendee.typeName) ?? new Map<number, DescFile>();
        numbers.set(type.number, file);
        this.extensions.set(type.extendee.typeName, numbers);
      }
      this.symbols.set(type.typeName, file);
      if (type.kind === "service")
        for (const method of type.methods) this.symbols.set(`${type.typeName}.${method.name}`, file);
    }
    for (const dependency of file.dependencies) this.add(dependency);
  }

  /** The file and every file it depends on that this stream has not been sent yet. */
  private descriptors(file: DescFile, sent: Set<string>): Answer {
    const out: Uint8Array[] = [];
    const visit = (f: DescFile) => {
      if (sent.has(f.proto.name)) return;
      sent.add(f.proto.name);
      out.push(toBinary(FileDescriptorProtoSchema, f.proto));
      f.dependencies.forEach(visit);
    };
    visit(file);
    return {
      validHost: "",
      messageResponse: {
        case: "fileDescriptorResponse",
        value: { $typeName: "grpc.reflection.v1.FileDescriptorResponse", fileDescriptorProto: out },
      },
    };
  }

  answer(request: ServerReflectionRequest, sent: Set<string>): Answer {
    const notFound = (what: string): Answer => ({
      validHost: "",
      messageResponse: {
        case: "errorResponse",
        value: {
          $typeName: "grpc.reflection.v1.ErrorResponse",
          errorCode: Code.NotFound,
          errorMessage: `${what} not found`,
        },
      },
    });
    const { case: kind, value } = request.messageRequest;
    switch (kind) {
      case "listServices":
        return {
          validHost: "",
          messageResponse: {
            case: "listServicesResponse",
            value: {
              $typeName: "grpc.reflection.v1.ListServiceResponse",
              service: this.services.map((s) => ({
                $typeName: "grpc.reflection.v1.ServiceResponse",
                name: s.typeName,
              })),
            },
          },
        };
      case "fileByFilename": {
        const file = this.files.get(value);
        return file ? this.descriptors(file, sent) : notFound(`file ${value}`);
      }
      case "fileContainingSymbol": {
        const file = this.symbols.get(value.replace(/^\./, ""));
        return file ? this.descriptors(file, sent) : notFound(`symbol ${value}`);
      }
      case "fileContainingExtension": {
        const file = this.extensions.get(value.containingType)?.get(value.extensionNumber);
        return file
          ? this.descriptors(file, sent)
          : notFound(`extension ${value.containingType}(${value.extensionNumber})`);
      }
      case "allExtensionNumbersOfType": {
        const numbers = this.extensions.get(value);
        if (!numbers && !this.symbols.has(value)) return notFound(`type ${value}`);
        return {
          validHost: "",
          messageResponse: {
            case: "allExtensionNumbersResponse",
            value: {
              $typeName: "grpc.reflection.v1.ExtensionNumberResponse",
              baseTypeName: value,
              extensionNumber: [...(numbers?.keys() ?? [])],
            },
          },
        };
      }
      default:
        return {
          validHost: "",
          messageResponse: {
            case: "errorResponse",
            value: {
              $typeName: "grpc.reflection.v1.ErrorResponse",
              errorCode: Code.InvalidArgument,
              errorMessage: "empty request",
            },
          },
        };
    }
  }
}

/**
 * gRPC server reflection (v1, and v1alpha for older clients) for every service registered on
 * the router so far, so that grpcurl, buf curl and Postman can call them without proto files.
 * Register it after the services.
 */
export function registerReflection(router: ConnectRouter): void {
  const services = [...new Map(router.handlers.map((h) => [h.service.typeName, h.service])).values()];
  const schema = new Schema([...services, ServerReflection, ServerReflectionAlpha]);
  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      const sent = new Set<string>();
      for await (const request of requests) yield { ...schema.answer(request, sent), originalRequest: request };
    },
  });
  // v1alpha has the same messages under another package: the same answers, re-labelled.
  router.service(ServerReflectionAlpha, {
    async *serverReflectionInfo(requests) {
      const sent = new Set<string>();
      for await (const request of requests) {
        const answer = schema.answer(request as unknown as ServerReflectionRequest, sent);
        yield { ...answer, originalRequest: request } as never;
      }
    },
  });
}
