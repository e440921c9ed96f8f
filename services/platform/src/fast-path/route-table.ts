/**
 * Path templates ("/api/contacts/{contact_id}") in a tree of segments, matched in one walk
 * instead of testing every route's regular expression in turn (Express's router), with the
 * matching rules of Express's router kept: literal segments compare without case, a parameter
 * is one non-empty segment (percent-decoded), one trailing slash is allowed, HEAD is served by
 * GET, and where a literal and a parameter both fit a segment the literal is tried first (the
 * order `collectRoutes` sorts routes in).
 */
interface RouteNode<T> {
  literals: Map<string, RouteNode<T>>;
  param?: { name: string; node: RouteNode<T> };
  /** The value of each verb ("get", "post", ...) whose template ends here. */
  verbs: Map<string, T>;
}

export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

const newNode = <T>(): RouteNode<T> => ({ literals: new Map(), verbs: new Map() });

export class RouteTable<T> {
  private readonly root: RouteNode<T> = newNode();

  add(verb: string, template: string, value: T): void {
    let node = this.root;
    for (const segment of segmentsOf(template)) {
      const param = /^\{([a-z_][a-z0-9_]*)\}$/.exec(segment)?.[1];
      if (param) {
        if (node.param && node.param.name !== param)
          throw new Error(`${template}: {${param}} where another route has {${node.param.name}}`);
        node.param ??= { name: param, node: newNode() };
        node = node.param.node;
      } else {
        const key = segment.toLowerCase();
        let next = node.literals.get(key);
        if (!next) {
          next = newNode();
          node.literals.set(key, next);
        }
        node = next;
      }
    }
    if (node.verbs.has(verb)) throw new Error(`two routes for ${verb.toUpperCase()} ${template}`);
    node.verbs.set(verb, value);
  }

  /**
   * The route of a request, with its path parameters decoded; undefined when none fits.
   * Throws URIError for a parameter that is not valid percent-encoding, as Express does.
   */
  match(method: string, path: string): RouteMatch<T> | undefined {
    const verb = method === "HEAD" ? "get" : method.toLowerCase();
    const segments = requestSegments(path);
    if (!segments) return undefined;
    const raw: string[] = [];
    const found = this.find(this.root, segments, 0, raw, (node) => node.verbs.get(verb));
    if (!found) {
      // Express decodes a path's parameters before it looks at the verb: a path that routes of
      // other verbs fit fails on bad percent-encoding too (only parameters can hold a "%").
      if (this.verbsAt(path).length > 0) for (const segment of segments) decodeURIComponent(segment);
      return undefined;
    }
    const params: Record<string, string> = {};
    for (let i = 0; i < found.names.length; i++)
      params[found.names[i] as string] = decodeURIComponent(raw[i] as string);
    return { value: found.value, params };
  }

  /** The verbs of every route whose template fits the path (an OPTIONS answer's Allow). */
  verbsAt(path: string): string[] {
    const segments = requestSegments(path);
    const verbs = new Set<string>();
    // A pick that never answers makes find() walk every branch that fits.
    if (segments) {
      this.find(this.root, segments, 0, [], (node) => {
        for (const verb of node.verbs.keys()) verbs.add(verb);
        return undefined;
      });
    }
    return [...verbs];
  }

  private find(
    node: RouteNode<T>,
    segments: string[],
    at: number,
    raw: string[],
    pick: (node: RouteNode<T>) => T | undefined,
  ): { value: T; names: string[] } | undefined {
    if (at === segments.length) {
      const value = pick(node);
      return value === undefined ? undefined : { value, names: [] };
    }
    const segment = segments[at] as string;
    const literal = node.literals.get(segment.toLowerCase());
    if (literal) {
      const found = this.find(literal, segments, at + 1, raw, pick);
      if (found) return found;
    }
    if (node.param && segment !== "") {
      raw.push(segment);
      const found = this.find(node.param.node, segments, at + 1, raw, pick);
      if (found) {
        found.names.unshift(node.param.name);
        return found;
      }
      raw.pop();
    }
    return undefined;
  }
}

/** Express's Allow header for the verbs served at a path (GET brings HEAD). */
export function allowHeader(verbs: string[]): string {
  const methods = new Set(verbs.map((verb) => verb.toUpperCase()));
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort().join(", ");
}

function segmentsOf(template: string): string[] {
  return template.split("/").slice(1);
}

/** A request path's segments, one trailing slash dropped; undefined for a path not starting with "/". */
function requestSegments(path: string): string[] | undefined {
  if (!path.startsWith("/")) return undefined;
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return trimmed.split("/").slice(1);
}
