/**
 * One resource in the grant editor: its actions, and for every field whether the key may read and
 * write it, with the field's type and select all / none per column.
 */
import { Accordion, Badge, Box, Checkbox, Flex, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import type { ResourceGrant as Grant } from '../../../../shared/contracts/keys';
import type { GrantAction, ResourceSummary } from '../../../../shared/contracts/registry';
import { useT, type Translate } from '../../hooks/useT';
import type { FieldErrors } from '../../utils/errors';
import { columnState } from '../../utils/grants';

type Props = {
  resource: ResourceSummary;
  grant: Grant;
  errors: FieldErrors;
  disabled?: boolean;
  onAction: (action: GrantAction, on: boolean) => void;
  onField: (field: string, kind: 'read' | 'write', on: boolean) => void;
  onAll: (kind: 'read' | 'write', on: boolean) => void;
};

export const actionLabel = (t: Translate, action: GrantAction): string =>
  ({
    read: t('grants.action.read', 'Read'),
    create: t('grants.action.create', 'Create'),
    update: t('grants.action.update', 'Update'),
    delete: t('grants.action.delete', 'Delete'),
  })[action];

const summary = (t: Translate, resource: ResourceSummary, grant: Grant): string => {
  if (grant.actions.length === 0) return t('grants.summary.none', 'Not granted');
  return t('grants.summary', '{actions} · {read} of {total} fields readable · {write} writable', {
    actions: grant.actions.map((action) => actionLabel(t, action)).join(', '),
    read: grant.read.length,
    write: grant.write.length,
    total: resource.fields.length,
  });
};

const ErrorText = ({ message }: { message?: string }) =>
  message ? (
    <Typography variant="pi" textColor="danger600" role="alert">
      {message}
    </Typography>
  ) : null;

export const ResourceGrant = ({ resource, grant, errors, disabled, onAction, onField, onAll }: Props) => {
  const t = useT();
  const resourceError = errors[''];
  const hasError = Object.keys(errors).length > 0;

  return (
    <Accordion.Item value={resource.id} data-testid={`grant-${resource.id}`}>
      <Accordion.Header>
        <Accordion.Trigger aria-label={t('grants.resource.toggle', '{name} ({path})', { name: resource.name, path: resource.path })}>
          <Flex gap={2} alignItems="center" tag="span">
            <span>{resource.name}</span>
            <Typography variant="pi" textColor="neutral600" tag="span">
              {resource.path}
            </Typography>
            {resource.mode === 'singleton' && <Badge size="S">{t('grants.singleton', 'Singleton')}</Badge>}
            {hasError && (
              <Badge size="S" variant="danger">
                {t('grants.hasError', 'Check this resource')}
              </Badge>
            )}
          </Flex>
        </Accordion.Trigger>
        <Accordion.Actions paddingRight={4}>
          <Typography variant="pi" textColor={grant.actions.length ? 'primary600' : 'neutral500'} style={{ whiteSpace: 'nowrap' }}>
            {summary(t, resource, grant)}
          </Typography>
        </Accordion.Actions>
      </Accordion.Header>
      <Accordion.Content>
        <Flex direction="column" alignItems="stretch" gap={4} padding={6}>
          <ErrorText message={resourceError} />
          <Flex direction="column" alignItems="stretch" gap={2} tag="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
            <Typography tag="legend" variant="sigma" textColor="neutral600">
              {t('grants.actions', 'Actions')}
            </Typography>
            <Flex gap={6} wrap="wrap">
              {resource.actions.map((action) => (
                <Checkbox
                  key={action}
                  name={`${resource.id}.actions.${action}`}
                  checked={grant.actions.includes(action)}
                  disabled={disabled}
                  onCheckedChange={(checked) => onAction(action, checked === true)}
                >
                  {actionLabel(t, action)}
                </Checkbox>
              ))}
            </Flex>
            <ErrorText message={errors.actions} />
          </Flex>

          {resource.fields.length === 0 ? (
            <Typography textColor="neutral600">{t('grants.noFields', 'This resource has no fields the API exposes.')}</Typography>
          ) : (
            <Box>
              <Table colCount={4} rowCount={resource.fields.length + 1}>
                <Thead>
                  <Tr>
                    <Th>
                      <Typography variant="sigma" textColor="neutral600">
                        {t('grants.field', 'Field')}
                      </Typography>
                    </Th>
                    <Th>
                      <Typography variant="sigma" textColor="neutral600">
                        {t('grants.type', 'Type')}
                      </Typography>
                    </Th>
                    {(['read', 'write'] as const).map((kind) => (
                      <Th key={kind}>
                        <Flex gap={2}>
                          <Checkbox
                            aria-label={
                              kind === 'read'
                                ? t('grants.allReadable', 'Select all or none of the readable fields of {name}', { name: resource.name })
                                : t('grants.allWritable', 'Select all or none of the writable fields of {name}', { name: resource.name })
                            }
                            checked={columnState(grant, resource, kind)}
                            disabled={disabled}
                            onCheckedChange={(checked) => onAll(kind, checked === true)}
                          />
                          <Typography variant="sigma" textColor="neutral600">
                            {kind === 'read' ? t('grants.readable', 'Readable') : t('grants.writable', 'Writable')}
                          </Typography>
                        </Flex>
                      </Th>
                    ))}
                  </Tr>
                </Thead>
                <Tbody>
                  {resource.fields.map((field) => (
                    <Tr key={field.key}>
                      <Td>
                        <Flex direction="column" alignItems="start">
                          <Typography textColor="neutral800" fontWeight="semiBold">
                            {field.label}
                            {field.required ? ' *' : ''}
                          </Typography>
                          <Typography variant="pi" textColor="neutral600">
                            {field.key}
                          </Typography>
                        </Flex>
                      </Td>
                      <Td>
                        <Badge size="S">{field.type}</Badge>
                      </Td>
                      {(['read', 'write'] as const).map((kind) => (
                        <Td key={kind}>
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
                        </Td>
                      ))}
                    </Tr>
                  ))}
                </Tbody>
              </Table>
              <Box paddingTop={2}>
                <ErrorText message={errors.read} />
                <ErrorText message={errors.write} />
                <Typography variant="pi" textColor="neutral600">
                  {t('grants.writableHint', 'Writable fields apply to create and update. Fields marked * are required.')}
                </Typography>
              </Box>
            </Box>
          )}
        </Flex>
      </Accordion.Content>
    </Accordion.Item>
  );
};
