/**
 * The key-scoped OpenAPI document, readable: each path with its methods and parameters, and each
 * schema with its fields and types. Shows why there is none while the API does not serve it.
 */
import { Badge, Box, Flex, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import type { PreviewAnswer } from '../../../../shared/contracts/preview';
import { useT } from '../../hooks/useT';
import { splitPaths, summarizeOpenApi, type PathSummary } from './openapi';

const METHOD_VARIANTS: Record<string, 'success' | 'primary' | 'warning' | 'danger' | 'neutral'> = {
  GET: 'primary',
  POST: 'success',
  PATCH: 'warning',
  PUT: 'warning',
  DELETE: 'danger',
};

const PathCard = ({ path }: { path: PathSummary }) => {
  const t = useT();
  return (
    <Box background="neutral100" hasRadius padding={3} data-testid="openapi-path">
      <Typography fontWeight="bold" tag="p" data-testid="openapi-path-name">
        {path.path}
      </Typography>
      {path.operations.map((operation) => (
        <Flex key={operation.method} gap={3} paddingTop={2} alignItems="start">
          <Badge size="S" variant={METHOD_VARIANTS[operation.method] ?? 'neutral'} minWidth="6rem">
            {operation.method}
          </Badge>
          <Flex direction="column" alignItems="start">
            <Typography>{operation.summary}</Typography>
            {operation.parameters.length > 0 && (
              <Typography variant="pi" textColor="neutral600">
                {t('preview.openapi.parameters', 'Parameters: {list}', { list: operation.parameters.join(', ') })}
              </Typography>
            )}
          </Flex>
        </Flex>
      ))}
    </Box>
  );
};

/** `ownPaths`: the granted resources' and commands' paths, listed before those every key has. */
export const OpenApiView = ({ answer, ownPaths }: { answer: PreviewAnswer | null; ownPaths: readonly string[] }) => {
  const t = useT();
  if (answer === null) {
    return (
      <Typography textColor="neutral600" data-testid="openapi-unavailable">
        {t(
          'preview.openapi.unavailable',
          'This server does not publish the OpenAPI document (/api/v2/schema) yet. It appears here as soon as it does.',
        )}
      </Typography>
    );
  }
  if (answer.status !== 200) {
    return (
      <Typography textColor="danger600">
        {t('preview.openapi.failed', 'The API answered {status} for /schema.', { status: answer.status })}
      </Typography>
    );
  }
  const document = summarizeOpenApi(answer.body);
  if (!document) {
    return <Typography textColor="danger600">{t('preview.openapi.invalid', 'The /schema answer is not an OpenAPI document.')}</Typography>;
  }
  const { own, common } = splitPaths(document.paths, ownPaths);
  return (
    <Flex direction="column" alignItems="stretch" gap={6} data-testid="openapi-view">
      <Typography textColor="neutral600">
        {t('preview.openapi.title', '{title} {version} · OpenAPI {openapi}', {
          title: document.title,
          version: document.version,
          openapi: document.openapi,
        })}
      </Typography>
      <Flex direction="column" alignItems="stretch" gap={2}>
        <Typography variant="delta" tag="h3">
          {t('preview.openapi.paths', 'Paths')}
        </Typography>
        {document.paths.length === 0 && <Typography textColor="neutral600">{t('preview.openapi.noPaths', 'No paths.')}</Typography>}
        {own.length > 0 && (
          <Typography variant="sigma" textColor="neutral600" tag="h4">
            {t('preview.openapi.paths.own', 'This key’s resources')}
          </Typography>
        )}
        {own.map((path) => (
          <PathCard key={path.path} path={path} />
        ))}
        {common.length > 0 && (
          <Box paddingTop={own.length > 0 ? 2 : 0}>
            <Typography variant="sigma" textColor="neutral600" tag="h4">
              {t('preview.openapi.paths.common', 'Every key’s paths')}
            </Typography>
          </Box>
        )}
        {common.map((path) => (
          <PathCard key={path.path} path={path} />
        ))}
      </Flex>
      <Flex direction="column" alignItems="stretch" gap={3}>
        <Typography variant="delta" tag="h3">
          {t('preview.openapi.schemas', 'Schemas')}
        </Typography>
        {document.schemas.map((schema) => (
          <Box key={schema.name}>
            <Typography fontWeight="bold" tag="p">
              {schema.name}
            </Typography>
            {schema.description && (
              <Typography variant="pi" textColor="neutral600">
                {schema.description}
              </Typography>
            )}
            {schema.fields.length > 0 && (
              <Box paddingTop={2}>
                <Table colCount={3} rowCount={schema.fields.length + 1}>
                  <Thead>
                    <Tr>
                      <Th>
                        <Typography variant="sigma" textColor="neutral600">
                          {t('preview.openapi.field', 'Field')}
                        </Typography>
                      </Th>
                      <Th>
                        <Typography variant="sigma" textColor="neutral600">
                          {t('preview.openapi.type', 'Type')}
                        </Typography>
                      </Th>
                      <Th>
                        <Typography variant="sigma" textColor="neutral600">
                          {t('preview.openapi.required', 'Required')}
                        </Typography>
                      </Th>
                    </Tr>
                  </Thead>
                  <Tbody>
                    {schema.fields.map((field) => (
                      <Tr key={field.name}>
                        <Td>
                          <Typography>{field.name}</Typography>
                        </Td>
                        <Td>
                          <Typography variant="pi" textColor="neutral700">
                            {field.type}
                          </Typography>
                        </Td>
                        <Td>
                          <Typography variant="pi">{field.required ? t('common.yes', 'Yes') : t('common.no', 'No')}</Typography>
                        </Td>
                      </Tr>
                    ))}
                  </Tbody>
                </Table>
              </Box>
            )}
          </Box>
        ))}
      </Flex>
    </Flex>
  );
};
