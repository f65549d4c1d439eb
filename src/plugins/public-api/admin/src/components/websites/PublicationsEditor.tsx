/**
 * A website's publications: which content type it publishes under which collection slug, as a
 * collection or a singleton. Single types can only be singletons. Choosing the content type fills in the
 * collection slug until the admin types their own (utils/publication-slug.ts). "Add a publication" puts the focus on
 * the new one's content type; removing one hands the focus to the publication now in its place, the one
 * before it, or "Add a publication".
 */
import { useEffect, useRef } from 'react';
import {
  Alert,
  Box,
  Button,
  Field,
  Flex,
  Grid,
  IconButton,
  SingleSelect,
  SingleSelectOption,
  TextInput,
  Typography,
} from '@strapi/design-system';
import { Plus, Trash } from '@strapi/icons';
import type { ContentTypeSummary } from '../../../../shared/contracts/registry';
import type { Publication } from '../../../../shared/contracts/websites';
import { useT } from '../../hooks/useT';
import type { FieldErrors } from '../../utils/errors';
import { collectionAfterTypeChange } from '../../utils/publication-slug';

type Props = {
  value: Publication[];
  onChange: (value: Publication[]) => void;
  contentTypes: ContentTypeSummary[];
  /** Errors by `<index>.<field>`. */
  errors: FieldErrors;
  disabled?: boolean;
};

export const PublicationsEditor = ({ value, onChange, contentTypes, errors, disabled }: Props) => {
  const t = useT();
  const list = useRef<HTMLDivElement | null>(null);
  const addButton = useRef<HTMLButtonElement | null>(null);
  /** Where the focus goes once the list has changed: a publication's content type, or the add button. */
  const focusTo = useRef<number | 'add' | null>(null);

  useEffect(() => {
    const target = focusTo.current;
    if (target === null) return;
    focusTo.current = null;
    if (target === 'add') addButton.current?.focus();
    else list.current?.querySelector<HTMLElement>(`[data-testid="publication-${target}"] [role="combobox"]`)?.focus();
  }, [value.length]);

  const update = (index: number, patch: Partial<Publication>) =>
    onChange(value.map((publication, i) => (i === index ? { ...publication, ...patch } : publication)));
  const remove = (index: number) => {
    const left = value.length - 1;
    focusTo.current = left === 0 ? 'add' : Math.min(index, left - 1);
    onChange(value.filter((_, i) => i !== index));
  };
  const add = () => {
    focusTo.current = value.length;
    onChange([...value, { collection: '', contentType: '', mode: 'collection' }]);
  };

  const onContentType = (index: number, uid: string) => {
    const type = contentTypes.find((candidate) => candidate.uid === uid);
    const current = value[index]!;
    const previous = contentTypes.find((candidate) => candidate.uid === current.contentType);
    const taken = value.filter((_, i) => i !== index).map((publication) => publication.collection);
    update(index, {
      contentType: uid,
      collection: collectionAfterTypeChange(current.collection, previous, type, taken),
      ...(type?.kind === 'singleType' ? { mode: 'singleton' as const } : {}),
    });
  };

  return (
    <Flex ref={list} direction="column" alignItems="stretch" gap={4}>
      {value.length === 0 && (
        <Typography textColor="neutral600">{t('publications.empty', 'This website publishes nothing yet.')}</Typography>
      )}
      {value.map((publication, index) => {
        const type = contentTypes.find((candidate) => candidate.uid === publication.contentType);
        const at = (field: string) => errors[`${index}.${field}`];
        return (
          <Box key={index} background="neutral100" hasRadius padding={4} data-testid={`publication-${index}`}>
            <Flex justifyContent="space-between" paddingBottom={3}>
              <Typography variant="sigma" textColor="neutral600" tag="h3">
                {t('publications.number', 'Publication {number}', { number: index + 1 })}
              </Typography>
              <IconButton
                label={t('publications.remove', 'Remove publication {number}', { number: index + 1 })}
                variant="ghost"
                disabled={disabled}
                onClick={() => remove(index)}
              >
                <Trash />
              </IconButton>
            </Flex>
            {type?.personalData && (
              <Box paddingBottom={3}>
                <Alert
                  variant="warning"
                  closeLabel={t('common.close', 'Close')}
                  title={t('publications.personalData.title', 'Personal data')}
                >
                  {t(
                    'publications.personalData',
                    '{name} records hold personal data (names, e-mail addresses). Publishing them lets every key granted this resource read them: grant it only to trusted servers, never to a public website.',
                    { name: type.displayName },
                  )}
                </Alert>
              </Box>
            )}
            <Grid.Root gap={4}>
              <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
                <Field.Root name={`publications.${index}.contentType`} required error={at('contentType')} width="100%">
                  <Field.Label>{t('publications.contentType', 'Content type')}</Field.Label>
                  <SingleSelect
                    value={publication.contentType || undefined}
                    placeholder={t('publications.contentType.placeholder', 'Choose a content type')}
                    disabled={disabled}
                    onChange={(uid) => onContentType(index, String(uid))}
                  >
                    {contentTypes.map((candidate) => (
                      <SingleSelectOption key={candidate.uid} value={candidate.uid}>
                        {candidate.kind === 'singleType'
                          ? t('publications.contentType.single', '{name} (single type)', { name: candidate.displayName })
                          : candidate.displayName}
                      </SingleSelectOption>
                    ))}
                  </SingleSelect>
                  <Field.Error />
                </Field.Root>
              </Grid.Item>
              <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
                <Field.Root
                  name={`publications.${index}.collection`}
                  required
                  error={at('collection')}
                  hint={t('publications.collection.hint', 'Lowercase letters, digits and dashes: /cms/<website>/<collection>.')}
                  width="100%"
                >
                  <Field.Label>{t('publications.collection', 'Collection slug')}</Field.Label>
                  <TextInput
                    value={publication.collection}
                    disabled={disabled}
                    onChange={(e: React.ChangeEvent<HTMLInputElement>) => update(index, { collection: e.target.value })}
                  />
                  <Field.Hint />
                  <Field.Error />
                </Field.Root>
              </Grid.Item>
              <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
                <Field.Root
                  name={`publications.${index}.mode`}
                  error={at('mode')}
                  hint={
                    type?.kind === 'singleType'
                      ? t('publications.mode.single', 'A single type is always published as a singleton.')
                      : type?.websiteScoped
                        ? t('publications.mode.scoped', 'Records linked to this website only. As a singleton: its one record.')
                        : undefined
                  }
                  width="100%"
                >
                  <Field.Label>{t('publications.mode', 'Mode')}</Field.Label>
                  <SingleSelect
                    value={publication.mode}
                    disabled={disabled || type?.kind === 'singleType'}
                    onChange={(mode) => update(index, { mode: mode === 'singleton' ? 'singleton' : 'collection' })}
                  >
                    <SingleSelectOption value="collection">{t('publications.mode.collection', 'Collection')}</SingleSelectOption>
                    <SingleSelectOption value="singleton">{t('publications.mode.singleton', 'Singleton')}</SingleSelectOption>
                  </SingleSelect>
                  <Field.Hint />
                  <Field.Error />
                </Field.Root>
              </Grid.Item>
              <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
                <Field.Root
                  name={`publications.${index}.name`}
                  error={at('name')}
                  hint={t('publications.name.hint', 'Optional: the resource name keys see.')}
                  width="100%"
                >
                  <Field.Label>{t('publications.name', 'Display name')}</Field.Label>
                  <TextInput
                    value={publication.name ?? ''}
                    disabled={disabled}
                    onChange={(e: React.ChangeEvent<HTMLInputElement>) => update(index, { name: e.target.value })}
                  />
                  <Field.Hint />
                  <Field.Error />
                </Field.Root>
              </Grid.Item>
            </Grid.Root>
          </Box>
        );
      })}
      <Flex>
        <Button ref={addButton} variant="secondary" startIcon={<Plus />} disabled={disabled} onClick={add}>
          {t('publications.add', 'Add a publication')}
        </Button>
      </Flex>
    </Flex>
  );
};
