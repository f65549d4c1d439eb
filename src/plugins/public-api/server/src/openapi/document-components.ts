/**
 * The components section, filled on demand: a shared schema, parameter, response or header is written
 * into the document the first time an operation refers to it, so a document holds exactly what its
 * paths use (nothing unused, nothing about what the key cannot reach).
 */
import type { HeaderObject, ParameterObject, Ref, ResponseObject, Schema } from './types';

type Section = 'schemas' | 'parameters' | 'responses' | 'headers';

const refTo = (section: Section, name: string): Ref => ({ $ref: `#/components/${section}/${name}` });

export class Components {
  readonly schemas = new Map<string, Schema>();
  readonly parameters = new Map<string, ParameterObject>();
  readonly responses = new Map<string, ResponseObject>();
  readonly headers = new Map<string, HeaderObject>();

  /**
   * A reference to schema `name`, defined by `build` the first time. The name is taken before `build`
   * runs, so schemas that refer to each other (events -> venue -> events) end.
   */
  schema(name: string, build: () => Schema): Ref {
    if (!this.schemas.has(name)) {
      this.schemas.set(name, {});
      this.schemas.set(name, build());
    }
    return refTo('schemas', name);
  }

  parameter(name: string, build: () => ParameterObject): Ref {
    if (!this.parameters.has(name)) this.parameters.set(name, build());
    return refTo('parameters', name);
  }

  response(name: string, build: () => ResponseObject): Ref {
    if (!this.responses.has(name)) this.responses.set(name, build());
    return refTo('responses', name);
  }

  header(name: string, build: () => HeaderObject): Ref {
    if (!this.headers.has(name)) this.headers.set(name, build());
    return refTo('headers', name);
  }
}

/** A section as the document holds it, in name order so that equal documents serialize equally. */
export const sorted = <T>(entries: Map<string, T>): Record<string, T> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
