import type { DescMessage, DescMethod, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createConnectRouter,
  createMethodImplSpec,
  createServiceImplSpec,
  type ConnectRouter,
  type ContextValues,
  type Interceptor,
  type MethodImplSpec,
  type Transport,
  type UnaryResponse,
} from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import { requestMessage, timedOut, unaryContext } from "./unary-call.js";

/** The unary implementations a service's routes register, by "package.Service/Method". */
export function collectImplementations(routes: (router: ConnectRouter) => void): Map<string, MethodImplSpec> {
  const specs = new Map<string, MethodImplSpec>();
  const inner = createConnectRouter();
  const recorder: ConnectRouter = {
    get handlers() {
      return inner.handlers;
    },
    service(service, implementation, options) {
      const spec = createServiceImplSpec(service, implementation);
      for (const method of Object.values(spec.methods)) specs.set(methodKey(method.method), method);
      inner.service(service, implementation, options);
      return recorder;
    },
    rpc(method, implementation, options) {
      specs.set(methodKey(method), createMethodImplSpec(method, implementation) as MethodImplSpec);
      inner.rpc(method, implementation, options);
      return recorder;
    },
  } as ConnectRouter;
  routes(recorder);
  return specs;
}

function methodKey(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}

/**
 * A Transport that calls a service's handlers in this process: no HTTP/2, no serialization.
 * The request runs through the same server interceptors as a call that arrives over the
 * network (internal token and org context from the metadata, roles, field rules, metrics and
 * error masking), so a handler cannot tell the difference. The deadline is enforced like a
 * client's: past it the caller gets DEADLINE_EXCEEDED. Streaming calls, which the services do
 * not have, go to `fallback`.
 */
export function localTransport(options: {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  /** For what the in-process path does not serve (streams). */
  fallback: () => Transport;
  url: string;
  /** False once the service has stopped: calls then fail as UNAVAILABLE, as they would over the network. */
  open: () => boolean;
}): Transport {
  const specs = collectImplementations(options.routes);
  const byMethod = new WeakMap<DescMethod, MethodImplSpec | undefined>();
  const { interceptors } = options;

  function specOf(method: DescMethod): MethodImplSpec | undefined {
    if (byMethod.has(method)) return byMethod.get(method);
    const spec = specs.get(methodKey(method));
    byMethod.set(method, spec);
    return spec;
  }

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: ConstructorParameters<typeof Headers>[0] | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      if (!options.open()) throw new ConnectError(`service at ${options.url} has stopped`, Code.Unavailable);
      const spec = specOf(method);
      if (spec?.kind !== "unary") {
        throw new ConnectError(`${method.parent.typeName}.${method.name} is not implemented`, Code.Unimplemented);
      }
      const deadlineMs = timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined;
      const context = unaryContext(method, {
        protocolName: "in-process",
        url: `${options.url}/${method.parent.typeName}/${method.name}`,
        header: new Headers(header),
        timeoutMs: deadlineMs,
        signal,
        values: contextValues,
      });
      const message = requestMessage(method.input, input);
      const call = invokeUnaryImplementation(spec, context, message, interceptors);
      const output = deadlineMs === undefined ? await call : await withDeadline(call, deadlineMs);
      return {
        stream: false,
        service: method.parent,
        method,
        header: context.responseHeader,
        trailer: context.responseTrailer,
        message: output,
      } as UnaryResponse<I, O>;
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return options.fallback().stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}

function withDeadline<T>(call: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), timeoutMs);
    call.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
