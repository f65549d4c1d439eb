/**
 * What the grants as they stand mean, live: a relation the API will leave out because its target is not
 * granted (with a one-click fix: read the target), Read with no readable field, a write action with no
 * writable field, Create without a required field (fix: write the required fields). Announced politely
 * to screen readers as they appear.
 */
import { Box, Button, Flex, Typography } from '@strapi/design-system';
import type { ResourceSummary } from '../../../../shared/contracts/registry';
import { useT } from '../../hooks/useT';
import { grantRequiredWrites, grantTargetRead, grantWarnings, type GrantWarning } from '../../utils/grant-warnings';
import { readAllFields, type Draft } from '../../utils/grants';

type Props = {
  resources: ResourceSummary[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  disabled?: boolean;
};

const keyOf = (warning: GrantWarning) =>
  `${warning.kind}:${warning.resource.id}:${warning.kind === 'relation-target' ? warning.field.key : ''}`;

export const GrantWarnings = ({ resources, draft, onChange, disabled }: Props) => {
  const t = useT();
  const warnings = grantWarnings(draft, resources);
  const describe = (warning: GrantWarning): { text: string; fix?: { label: string; apply: () => Draft } } => {
    switch (warning.kind) {
      case 'relation-target':
        if (!warning.target) {
          return {
            text: t('grants.warning.noTarget', '{resource}: “{field}” links to content the API does not serve, so it is never shown.', {
              resource: warning.resource.name,
              field: warning.field.label,
            }),
          };
        }
        {
          const target = warning.target;
          return {
            text: t(
              'grants.warning.target',
              '{resource}: “{field}” links to {target}, which this key is not granted, so the API leaves it out.',
              { resource: warning.resource.name, field: warning.field.label, target: target.name },
            ),
            fix: {
              label: t('grants.warning.target.fix', 'Let the key read {target}', { target: target.name }),
              apply: () => grantTargetRead(draft, target),
            },
          };
        }
      case 'read-no-fields':
        return {
          text: t('grants.warning.readNoFields', '{resource}: Read with no readable field serves records with no attributes.', {
            resource: warning.resource.name,
          }),
          fix: {
            label: t('grants.warning.readNoFields.fix', 'Read all fields of {resource}', { resource: warning.resource.name }),
            apply: () => readAllFields(draft, warning.resource),
          },
        };
      case 'write-no-fields':
        return {
          text: t(
            'grants.warning.writeNoFields',
            '{resource}: Create or update with no writable field accepts no value. Choose them under Fields.',
            {
              resource: warning.resource.name,
            },
          ),
        };
      case 'create-required-not-writable':
        return {
          text: t(
            'grants.warning.createRequired',
            '{resource}: Create needs {fields}, which this key may not write, so every create is refused.',
            { resource: warning.resource.name, fields: warning.fields.map((field) => `“${field.label}”`).join(', ') },
          ),
          fix: {
            label: t('grants.warning.createRequired.fix', 'Let the key write the required fields of {resource}', {
              resource: warning.resource.name,
            }),
            apply: () => grantRequiredWrites(draft, warning.resource),
          },
        };
    }
  };

  return (
    <Box aria-live="polite" data-testid="grant-warnings">
      {warnings.length > 0 && (
        <Box background="warning100" borderColor="warning200" hasRadius padding={4}>
          <Flex direction="column" alignItems="stretch" gap={2}>
            <Typography variant="omega" fontWeight="bold" textColor="neutral800" tag="h3">
              {t('grants.warnings.title', 'What these grants mean')}
            </Typography>
            <Flex direction="column" alignItems="stretch" gap={2} tag="ul">
              {warnings.map((warning) => {
                const { text, fix } = describe(warning);
                return (
                  <Flex key={keyOf(warning)} tag="li" gap={3} justifyContent="space-between" data-testid="grant-warning">
                    <Typography textColor="neutral800">{text}</Typography>
                    {fix && !disabled && (
                      <Button variant="secondary" size="S" onClick={() => onChange(fix.apply())} style={{ flexShrink: 0 }}>
                        {fix.label}
                      </Button>
                    )}
                  </Flex>
                );
              })}
            </Flex>
          </Flex>
        </Box>
      )}
    </Box>
  );
};
