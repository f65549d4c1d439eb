/**
 * An OpenAPI 3.x document -> what the preview shows: each path with its methods, and each schema
 * with its fields. Pure and defensive: anything unexpected is skipped, never thrown.
 */
export type OperationSummary = { method: string; summary: string; parameters: string[] };
export type PathSummary = { path: string; operations: OperationSummary[] };
export type SchemaField = { name: string; type: string; required: boolean };
export type SchemaSummary = { name: string; description: string; fields: SchemaField[] };
export type OpenApiSummary = {
  title: string;
  version: string;
  openapi: string;
  paths: PathSummary[];
  schemas: SchemaSummary[];
};

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const refName = (ref: string): string => ref.split('/').pop() ?? ref;

/** A short type label: `string`, `integer`, `string (date-time)`, `array of Event`, `Event`, `a | b`. */
export const typeLabel = (schema: unknown): string => {
  if (!isRecord(schema)) return 'any';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if (Array.isArray(schema.enum)) return `enum (${schema.enum.map(String).join(', ')})`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  for (const combinator of ['oneOf', 'anyOf', 'allOf'] as const) {
    const parts = schema[combinator];
    if (Array.isArray(parts) && parts.length) return parts.map(typeLabel).join(combinator === 'allOf' ? ' & ' : ' | ');
  }
  const type = Array.isArray(schema.type) ? schema.type.map(String).join(' | ') : text(schema.type);
  if (type === 'array') return `array of ${typeLabel(schema.items)}`;
  const format = text(schema.format);
  if (type) return format ? `${type} (${format})` : type;
  if (isRecord(schema.properties)) return 'object';
  return 'any';
};

const parameterLabel = (parameter: unknown, components: Json): string | null => {
  let value = parameter;
  if (isRecord(value) && typeof value.$ref === 'string') {
    const name = refName(value.$ref);
    value = isRecord(components.parameters) ? components.parameters[name] : undefined;
  }
  if (!isRecord(value) || typeof value.name !== 'string') return null;
  return `${value.name} (${text(value.in) || 'query'})`;
};

export const summarizeOpenApi = (document: unknown): OpenApiSummary | null => {
  if (!isRecord(document) || typeof document.openapi !== 'string') return null;
  const info = isRecord(document.info) ? document.info : {};
  const components = isRecord(document.components) ? document.components : {};
  const paths = isRecord(document.paths) ? document.paths : {};

  const pathSummaries: PathSummary[] = Object.entries(paths)
    .filter((entry): entry is [string, Json] => isRecord(entry[1]))
    .map(([path, item]) => ({
      path,
      operations: METHODS.filter((method) => isRecord(item[method])).map((method) => {
        const operation = item[method] as Json;
        const parameters = [
          ...(Array.isArray(item.parameters) ? item.parameters : []),
          ...(Array.isArray(operation.parameters) ? operation.parameters : []),
        ];
        return {
          method: method.toUpperCase(),
          summary: text(operation.summary) || text(operation.operationId),
          parameters: parameters
            .map((parameter) => parameterLabel(parameter, components))
            .filter((label): label is string => label !== null),
        };
      }),
    }));

  const schemas = isRecord(components.schemas) ? components.schemas : {};
  const schemaSummaries: SchemaSummary[] = Object.entries(schemas)
    .filter((entry): entry is [string, Json] => isRecord(entry[1]))
    .map(([name, schema]) => {
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      const properties = isRecord(schema.properties) ? schema.properties : {};
      return {
        name,
        description: text(schema.description),
        fields: Object.entries(properties).map(([field, value]) => ({
          name: field,
          type: typeLabel(value),
          required: required.has(field),
        })),
      };
    });

  return {
    title: text(info.title),
    version: text(info.version),
    openapi: document.openapi,
    paths: pathSummaries,
    schemas: schemaSummaries,
  };
};

/**
 * The paths of what a key was given (a granted resource's path and those below it, a granted command's
 * `/commands/<name>`), then the paths every key has (the index, /schema, /openapi, /commands/schema,
 * /sync, /operations). Each part keeps the document's order.
 */
export const splitPaths = (paths: PathSummary[], ownPaths: readonly string[]): { own: PathSummary[]; common: PathSummary[] } => {
  const isOwn = (path: string) => ownPaths.some((own) => path === own || path.startsWith(`${own}/`));
  return { own: paths.filter((path) => isOwn(path.path)), common: paths.filter((path) => !isOwn(path.path)) };
};
