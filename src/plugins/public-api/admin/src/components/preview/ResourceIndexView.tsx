/**
 * GET /api/v2/ as the key would see it, as a table: the resources, their URLs and modes.
 */
import { Badge, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import type { PreviewAnswer } from '../../../../shared/contracts/preview';
import { useT } from '../../hooks/useT';

type IndexEntry = {
  id: string;
  attributes: { name?: string; slug?: string; mode?: string; sourceType?: string; website?: string };
  links?: { self?: string };
};

const entriesOf = (body: unknown): IndexEntry[] => {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { data?: unknown }).data)) return [];
  return (body as { data: unknown[] }).data.filter(
    (entry): entry is IndexEntry => typeof entry === 'object' && entry !== null && typeof (entry as IndexEntry).id === 'string',
  );
};

export const ResourceIndexView = ({ answer }: { answer: PreviewAnswer }) => {
  const t = useT();
  const entries = entriesOf(answer.body);
  if (answer.status !== 200) {
    return (
      <Typography textColor="danger600">{t('preview.index.failed', 'The API answered {status}.', { status: answer.status })}</Typography>
    );
  }
  if (entries.length === 0) {
    return (
      <Typography textColor="neutral600">
        {t('preview.index.empty', 'This key sees no resources yet: grant at least one action on a resource.')}
      </Typography>
    );
  }
  return (
    <Table colCount={4} rowCount={entries.length + 1} data-testid="preview-index">
      <Thead>
        <Tr>
          <Th>
            <Typography variant="sigma" textColor="neutral600">
              {t('preview.index.resource', 'Resource')}
            </Typography>
          </Th>
          <Th>
            <Typography variant="sigma" textColor="neutral600">
              {t('preview.index.id', 'Id')}
            </Typography>
          </Th>
          <Th>
            <Typography variant="sigma" textColor="neutral600">
              {t('preview.index.mode', 'Mode')}
            </Typography>
          </Th>
          <Th>
            <Typography variant="sigma" textColor="neutral600">
              {t('preview.index.url', 'URL')}
            </Typography>
          </Th>
        </Tr>
      </Thead>
      <Tbody>
        {entries.map((entry) => (
          <Tr key={entry.id}>
            <Td>
              <Typography fontWeight="semiBold">{entry.attributes.name ?? entry.id}</Typography>
            </Td>
            <Td>
              <Typography variant="pi">{entry.id}</Typography>
            </Td>
            <Td>
              <Badge size="S">{entry.attributes.mode ?? '—'}</Badge>
            </Td>
            <Td>
              <Typography variant="pi" textColor="neutral700">
                {entry.links?.self ?? ''}
              </Typography>
            </Td>
          </Tr>
        ))}
      </Tbody>
    </Table>
  );
};
