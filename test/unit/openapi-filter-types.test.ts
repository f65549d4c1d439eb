/**
 * Every filter value the document describes, for every filterable field and operator of every resource,
 * is one plain JSON type (with a format where it has one), never a combination of schemas: code
 * generators (openapi-typescript) type an `anyOf` of formats as `unknown`, which lets wrong calls compile.
 */
import { allGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { buildOpenApiDocument } from '../../src/plugins/public-api/server/src/openapi/document';
import { demoResources } from '../helpers/registry';

type Schema = { type?: unknown; format?: string; properties?: Record<string, Schema>; oneOf?: Schema[]; anyOf?: unknown; allOf?: unknown };
type Parameter = { name?: string; schema?: Schema };

const resources = demoResources();
const document = buildOpenApiDocument({
  baseUrl: 'https://api.example.org/api/v2',
  grants: allGrants(resources, []),
  resources,
  locales: ['de', 'en'],
  commands: [],
});

const filterParameters = (): { path: string; filter: Schema }[] =>
  Object.entries(document.paths).flatMap(([path, item]) => {
    const parameters = (item.get?.parameters ?? []) as Parameter[];
    const filter = parameters.find((parameter) => parameter.name === 'filter');
    return filter?.schema ? [{ path, filter: filter.schema }] : [];
  });

test('every filter value schema is one JSON type; dates and datetimes are strings with their format', () => {
  const values: { where: string; schema: Schema }[] = [];
  for (const { path, filter } of filterParameters()) {
    for (const [field, property] of Object.entries(filter.properties ?? {})) {
      // A field takes a value (equality) or an object of operators.
      const [value, operators] = property.oneOf ?? [];
      expect({ where: `${path} ${field}`, branches: property.oneOf?.length }).toEqual({ where: `${path} ${field}`, branches: 2 });
      values.push({ where: `${path} ${field}`, schema: value! });
      for (const [op, schema] of Object.entries(operators!.properties ?? {})) values.push({ where: `${path} ${field}[${op}]`, schema });
    }
  }
  expect(values.length).toBeGreaterThan(100);
  for (const { where, schema } of values) {
    expect({
      where,
      type: typeof schema.type,
      combined: [schema.anyOf, schema.oneOf, schema.allOf].some((member) => member !== undefined),
    }).toEqual({
      where,
      type: 'string',
      combined: false,
    });
  }
  const formats = new Set(values.map(({ schema }) => schema.format).filter(Boolean));
  expect([...formats].sort()).toEqual(['date', 'date-time']);
  // The system values and the datetime fields are date-times, the date fields dates.
  const at = (suffix: string) => values.find(({ where }) => where.endsWith(suffix))!.schema;
  expect(at('/events createdAt[gte]')).toMatchObject({ type: 'string', format: 'date-time' });
  expect(at('/events startsAt[lt]')).toMatchObject({ type: 'string', format: 'date-time' });
  expect(at('/festivals startsOn[lt]')).toMatchObject({ type: 'string', format: 'date' });
});
