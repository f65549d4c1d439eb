/**
 * A resource's fields, opened in place under its row of the grant matrix: for every field whether the
 * key may read and write it, with the field's type, and all / none per column.
 */
import { Badge, Box, Checkbox, Flex, Typography } from '@strapi/design-system';
import type { ResourceGrant as Grant } from '../../../../shared/contracts/keys';
import type { ResourceSummary } from '../../../../shared/contracts/registry';
import { useT } from '../../hooks/useT';
import type { FieldErrors } from '../../utils/errors';
import { columnState } from '../../utils/grants';

type Props = {
  resource: ResourceSummary;
  grant: Grant;
  errors: FieldErrors;
  /** Relation fields the API leaves out while their target is not granted. */
  hidden: Set<string>;
  disabled?: boolean;
  onField: (field: string, kind: 'read' | 'write', on: boolean) => void;
  onAll: (kind: 'read' | 'write', on: boolean) => void;
};

const cell = { padding: '0.5rem 0.75rem', textAlign: 'left' as const, borderBottom: '1px solid #eaeaef', verticalAlign: 'middle' as const };

export const ErrorText = ({ message }: { message?: string }) =>
  message ? (
    <Typography variant="pi" textColor="danger600" role="alert">
      {message}
    </Typography>
  ) : null;

export const FieldPicker = ({ resource, grant, errors, hidden, disabled, onField, onAll }: Props) => {
  const t = useT();
  if (resource.fields.length === 0) {
    return <Typography textColor="neutral600">{t('grants.noFields', 'This resource has no fields the API exposes.')}</Typography>;
  }
  const writes = resource.actions.includes('create') || resource.actions.includes('update');
  const kinds = writes ? (['read', 'write'] as const) : (['read'] as const);
  return (
    <Box>
      <table style={{ width: '100%', borderCollapse: 'collapse' }} data-testid={`fields-${resource.id}`}>
        <caption style={{ textAlign: 'left', paddingBottom: '0.5rem' }}>
          <Typography variant="sigma" textColor="neutral600">
            {t('grants.fields.caption', 'Fields of {name}', { name: resource.name })}
          </Typography>
        </caption>
        <thead>
          <tr>
            <th scope="col" style={cell}>
              <Typography variant="sigma" textColor="neutral600">
                {t('grants.field', 'Field')}
              </Typography>
            </th>
            <th scope="col" style={cell}>
              <Typography variant="sigma" textColor="neutral600">
                {t('grants.type', 'Type')}
              </Typography>
            </th>
            {kinds.map((kind) => (
              <th scope="col" key={kind} style={cell}>
                <Flex gap={2}>
                  <Checkbox
                    aria-label={
                      kind === 'read'
                        ? t('grants.allReadable', 'All fields of {name} readable', { name: resource.name })
                        : t('grants.allWritable', 'All fields of {name} writable', { name: resource.name })
                    }
                    checked={columnState(grant, resource, kind)}
                    disabled={disabled}
                    onCheckedChange={(checked) => onAll(kind, checked === true)}
                  />
                  <Typography variant="sigma" textColor="neutral600">
                    {kind === 'read' ? t('grants.readable', 'Readable') : t('grants.writable', 'Writable')}
                  </Typography>
                </Flex>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {resource.fields.map((field) => (
            <tr key={field.key}>
              <th scope="row" style={{ ...cell, fontWeight: 'normal' }}>
                <Flex direction="column" alignItems="start">
                  <Typography textColor="neutral800" fontWeight="semiBold">
                    {field.label}
                    {field.required ? ' *' : ''}
                  </Typography>
                  <Typography variant="pi" textColor="neutral600">
                    {field.key}
                    {hidden.has(field.key) && (grant.read.includes(field.key) || grant.write.includes(field.key))
                      ? ` · ${t('grants.field.hidden', 'not served: its target is not granted')}`
                      : ''}
                  </Typography>
                </Flex>
              </th>
              <td style={cell}>
                <Badge size="S">{field.type}</Badge>
              </td>
              {kinds.map((kind) => (
                <td key={kind} style={cell}>
                  <Checkbox
                    name={`${resource.id}.${kind}.${field.key}`}
                    aria-label={
                      kind === 'read'
                        ? t('grants.fieldReadable', '{field} is readable', { field: field.label })
                        : t('grants.fieldWritable', '{field} is writable', { field: field.label })
                    }
                    checked={grant[kind].includes(field.key)}
                    disabled={disabled}
                    onCheckedChange={(checked) => onField(field.key, kind, checked === true)}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <Box paddingTop={2}>
        <ErrorText message={errors.read} />
        <ErrorText message={errors.write} />
        <Typography variant="pi" textColor="neutral600">
          {t('grants.writableHint', 'Writable fields apply to create and update. Fields marked * are required.')}
        </Typography>
      </Box>
    </Box>
  );
};
